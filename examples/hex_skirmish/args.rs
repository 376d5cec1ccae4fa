//! The command line: what it may ask for (`--help` prints it) and how it is read.

use std::path::PathBuf;

use bevy::prelude::*;

use crate::shared_args::{Args, or_exit, seed_from_clock};

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
        or_exit("hex_skirmish", Self::parse(&mut Args::new(USAGE)))
    }

    fn parse(args: &mut Args) -> Result<Self, String> {
        let mut options = Options {
            seed: seed_from_clock(),
            autoplay: None,
            screenshot: None,
            exit: false,
        };
        while let Some(arg) = args.next_arg() {
            match arg.as_str() {
                "--seed" => options.seed = args.number("--seed")?,
                "--autoplay" => options.autoplay = Some(args.number("--autoplay")?),
                "--screenshot" => options.screenshot = Some(args.value("--screenshot")?.into()),
                "--exit" => options.exit = true,
                "--help" | "-h" => args.help(),
                other => return Err(args.unknown(other)),
            }
        }
        Ok(options)
    }
}
