//! The command line (`--help` prints it).

use std::path::PathBuf;

use bevy::prelude::*;

const USAGE: &str = "usage: ldtk_level [--seed N] [--autoplay STEPS] [--screenshot PATH] [--exit]";

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
pub struct Options {
    /// Picks the goblins' steps.
    pub seed: u64,
    /// Play this many steps, one per frame, then stop (and finish, see `finish.rs`).
    pub autoplay: Option<u32>,
    pub screenshot: Option<PathBuf>,
    pub exit: bool,
}

impl Options {
    /// The options of this run; exits with the usage on `--help`, and with status 2 and the
    /// error on a bad argument.
    pub fn from_args() -> Self {
        let mut args = std::env::args().skip(1);
        let mut options = Self {
            seed: 1,
            autoplay: None,
            screenshot: None,
            exit: false,
        };
        while let Some(arg) = args.next() {
            if let Err(message) = options.read(&arg, &mut args) {
                eprintln!("ldtk_level: {message}\n{USAGE}");
                std::process::exit(2);
            }
        }
        options
    }

    /// Reads one argument (and its value from `rest`).
    fn read(&mut self, arg: &str, rest: &mut impl Iterator<Item = String>) -> Result<(), String> {
        let mut value = || rest.next().ok_or(format!("{arg} needs a value"));
        match arg {
            "--seed" => self.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--autoplay" => {
                self.autoplay = Some(value()?.parse().map_err(|e| format!("--autoplay: {e}"))?)
            }
            "--screenshot" => self.screenshot = Some(value()?.into()),
            "--exit" => self.exit = true,
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
        Ok(())
    }
}
