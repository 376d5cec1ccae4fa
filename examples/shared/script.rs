//! Shared by the examples with a scripted game (each includes it with `#[path]`): the command
//! line (`--seed N --autoplay STEPS --fog smooth|tiles --screenshot PATH --exit`, `--help`
//! prints it) and the
//! frames let pass after the last step before the screenshot.

use std::path::PathBuf;

use bevy::prelude::*;

use crate::shared_args::{Args, or_exit, seed_from_clock};

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
pub struct Options {
    /// The game's dice (default: from the clock).
    pub seed: u64,
    /// Play this many steps, one per frame, then stop (and finish: screenshot, exit).
    pub autoplay: Option<u32>,
    /// `--fog tiles`: the fog in the tiles' colours (`FogStyle`) instead of the smooth fog
    /// (`SmoothFog`, the default).
    pub smooth_fog: bool,
    pub screenshot: Option<PathBuf>,
    pub exit: bool,
}

impl Options {
    /// The options of `program`'s run; exits with the usage on `--help`, and with status 2 and
    /// the error on a bad argument.
    #[allow(dead_code)]
    pub fn from_args(program: &str) -> Self {
        Self::from_args_with(program, "", |_, _| Ok(false))
    }

    /// The same, with options of the example's own: `more` is their usage, `option(arg, args)`
    /// reads one (taking its value from `args`) and says whether it knew it.
    pub fn from_args_with(
        program: &str,
        more: &str,
        option: impl FnMut(&str, &mut Args) -> Result<bool, String>,
    ) -> Self {
        let usage = format!(
            "usage: {program} [--seed N] [--autoplay STEPS] [--fog smooth|tiles] [--screenshot PATH] \
             [--exit]{more}"
        );
        or_exit(program, Self::parse(&mut Args::new(usage), option))
    }

    fn parse(
        args: &mut Args,
        mut option: impl FnMut(&str, &mut Args) -> Result<bool, String>,
    ) -> Result<Self, String> {
        let mut options = Self {
            seed: seed_from_clock(),
            autoplay: None,
            smooth_fog: true,
            screenshot: None,
            exit: false,
        };
        while let Some(arg) = args.next_arg() {
            match arg.as_str() {
                "--seed" => options.seed = args.number("--seed")?,
                "--autoplay" => options.autoplay = Some(args.number("--autoplay")?),
                "--fog" => options.smooth_fog = smooth(&args.value("--fog")?)?,
                "--screenshot" => options.screenshot = Some(args.value("--screenshot")?.into()),
                "--exit" => options.exit = true,
                "--help" | "-h" => args.help(),
                other if option(other, args)? => {}
                other => return Err(args.unknown(other)),
            }
        }
        Ok(options)
    }
}

/// Whether `--fog`'s value asks for the smooth fog.
fn smooth(value: &str) -> Result<bool, String> {
    match value {
        "smooth" => Ok(true),
        "tiles" => Ok(false),
        other => Err(format!("--fog: {other:?} is not smooth or tiles")),
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
