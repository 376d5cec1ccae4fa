//! The command line: what it may ask for (`--help` prints it) and how it is read.

use std::path::PathBuf;

use bevy::prelude::*;

const USAGE: &str =
    "usage: hex_skirmish [--seed N] [--autoplay TURNS] [--screenshot PATH] [--exit]";

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
pub struct Options {
    pub seed: u64,
    /// Play this many turns, one per frame, then stop (and finish, see `finish.rs`).
    pub autoplay: Option<u32>,
    pub screenshot: Option<PathBuf>,
    pub exit: bool,
}

impl Options {
    /// The options of this run; exits with the usage on `--help`, and with status 2 and the
    /// error on a bad argument.
    pub fn from_args() -> Self {
        Self::parse().unwrap_or_else(|message| {
            eprintln!("hex_skirmish: {message}");
            std::process::exit(2);
        })
    }

    fn parse() -> Result<Self, String> {
        let mut options = Options {
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64 % 100_000),
            autoplay: None,
            screenshot: None,
            exit: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match arg.as_str() {
                "--seed" => options.seed = number("--seed", value("--seed")?)?,
                "--autoplay" => {
                    options.autoplay = Some(number("--autoplay", value("--autoplay")?)?)
                }
                "--screenshot" => options.screenshot = Some(value("--screenshot")?.into()),
                "--exit" => options.exit = true,
                "--help" | "-h" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
            }
        }
        Ok(options)
    }
}

/// The number an option's value spells, or an error naming the option.
fn number<T: std::str::FromStr<Err: std::fmt::Display>>(
    name: &str,
    value: String,
) -> Result<T, String> {
    value.parse().map_err(|e| format!("{name}: {e}"))
}
