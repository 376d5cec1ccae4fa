//! The command line: which side to run and the options (`--help` prints them).

use std::path::PathBuf;

use bevy::prelude::*;

const USAGE: &str = "usage: multiplayer [server|client] [--port N] [--seed N] [--frames N] \
                     [--screenshot PATH] [--exit]";

/// Which side this process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Server,
    Client,
    /// A server in a child process and a client here.
    Both,
}

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
pub struct Options {
    pub mode: Mode,
    pub port: u16,
    pub seed: u64,
    /// The client saves a screenshot (and/or exits) after this many frames of play.
    pub frames: Option<u32>,
    pub screenshot: Option<PathBuf>,
    pub exit: bool,
}

impl Options {
    /// The options of this run; exits with the usage on `--help`, and with status 2 and the
    /// error on a bad argument.
    pub fn from_args() -> Self {
        Self::parse().unwrap_or_else(|message| {
            eprintln!("multiplayer: {message}");
            std::process::exit(2);
        })
    }

    fn parse() -> Result<Self, String> {
        let mut options = Options {
            mode: Mode::Both,
            port: 5917,
            seed: 7,
            frames: None,
            screenshot: None,
            exit: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match arg.as_str() {
                "server" => options.mode = Mode::Server,
                "client" => options.mode = Mode::Client,
                "--port" => options.port = number("--port", value("--port")?)?,
                "--seed" => options.seed = number("--seed", value("--seed")?)?,
                "--frames" => options.frames = Some(number("--frames", value("--frames")?)?),
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
