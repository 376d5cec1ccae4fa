//! The command line: what it may ask for (`--help` prints it) and how it is read.

use std::path::PathBuf;

use bevy::prelude::*;

const USAGE: &str = "usage: dungeon [--seed N] [--radius N] [--monster-views] \
                     [--autoplay TURNS] [--screenshot PATH] [--record GIF] [--exit]";

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
pub struct Options {
    pub seed: u64,
    pub autoplay: Option<u32>,
    pub screenshot: Option<PathBuf>,
    /// Film the scripted game into this GIF (see `record`).
    pub record: Option<PathBuf>,
    pub exit: bool,
    pub radius: u32,
    /// Start with the monsters' views drawn (as `v` does).
    pub monster_views: bool,
}

impl Options {
    /// The options of this run; exits with the usage on `--help`, and with status 2 and the
    /// error on a bad argument.
    pub fn from_args() -> Self {
        Self::parse().unwrap_or_else(|message| {
            eprintln!("dungeon: {message}");
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
            record: None,
            exit: false,
            radius: 10,
            monster_views: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match arg.as_str() {
                "--seed" => options.seed = number("--seed", value("--seed")?)?,
                "--autoplay" => {
                    options.autoplay = Some(number("--autoplay", value("--autoplay")?)?)
                }
                "--radius" => options.radius = number("--radius", value("--radius")?)?,
                "--screenshot" => options.screenshot = Some(value("--screenshot")?.into()),
                "--record" => options.record = Some(value("--record")?.into()),
                "--exit" => options.exit = true,
                "--monster-views" => options.monster_views = true,
                "--help" | "-h" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                other => {
                    return Err(format!("unknown argument {other:?}\n{USAGE}"));
                }
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
