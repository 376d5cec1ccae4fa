//! Shared by the examples with a scripted game (each includes it with `#[path]`): the command
//! line (`--seed N --autoplay STEPS --screenshot PATH --exit`, `--help` prints it) and the
//! frames let pass after the last step before the screenshot.

use std::path::PathBuf;

use bevy::prelude::*;

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
pub struct Options {
    /// The game's dice (default: from the clock).
    pub seed: u64,
    /// Play this many steps, one per frame, then stop (and finish: screenshot, exit).
    pub autoplay: Option<u32>,
    pub screenshot: Option<PathBuf>,
    pub exit: bool,
}

impl Options {
    /// The options of `program`'s run; exits with the usage on `--help`, and with status 2 and
    /// the error on a bad argument.
    pub fn from_args(program: &str) -> Self {
        let usage =
            format!("usage: {program} [--seed N] [--autoplay STEPS] [--screenshot PATH] [--exit]");
        let mut args = std::env::args().skip(1);
        let mut options = Self {
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64 % 100_000),
            autoplay: None,
            screenshot: None,
            exit: false,
        };
        while let Some(arg) = args.next() {
            if matches!(arg.as_str(), "--help" | "-h") {
                println!("{usage}");
                std::process::exit(0);
            }
            if let Err(message) = options.read(&arg, &mut args) {
                eprintln!("{program}: {message}\n{usage}");
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
            other => return Err(format!("unknown argument {other:?}")),
        }
        Ok(())
    }
}

/// Counts the frames after the last scripted step, so that it is drawn before the screenshot.
#[derive(Resource, Default)]
pub struct Settle {
    frames: u32,
    done: bool,
}

impl Settle {
    /// Frames to let the last step render.
    const FRAMES: u32 = 6;

    /// Call it every frame once the game is over: true once, that many frames later.
    pub fn finished(&mut self) -> bool {
        if self.done {
            return false;
        }
        self.frames += 1;
        self.done = self.frames >= Self::FRAMES;
        self.done
    }
}
