//! The command line: which side to run and the options (`--help` prints them).

use std::path::PathBuf;

use bevy::prelude::*;

use crate::shared_args::{Args, or_exit};

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
        or_exit("multiplayer", Self::parse(&mut Args::new(USAGE)))
    }

    fn parse(args: &mut Args) -> Result<Self, String> {
        let mut options = Options {
            mode: Mode::Both,
            port: 5917,
            seed: 7,
            frames: None,
            screenshot: None,
            exit: false,
        };
        while let Some(arg) = args.next_arg() {
            match arg.as_str() {
                "server" => options.mode = Mode::Server,
                "client" => options.mode = Mode::Client,
                "--port" => options.port = args.number("--port")?,
                "--seed" => options.seed = args.number("--seed")?,
                "--frames" => options.frames = Some(args.number("--frames")?),
                "--screenshot" => options.screenshot = Some(args.value("--screenshot")?.into()),
                "--exit" => options.exit = true,
                "--help" | "-h" => args.help(),
                other => return Err(args.unknown(other)),
            }
        }
        Ok(options)
    }
}
