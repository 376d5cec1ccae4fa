//! The command line: what it may ask for (`--help` prints it) and how it is read.

use std::path::PathBuf;

use bevy::prelude::*;

use crate::shared_args::{Args, or_exit, seed_from_clock};

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
        or_exit("dungeon", Self::parse(&mut Args::new(USAGE)))
    }

    fn parse(args: &mut Args) -> Result<Self, String> {
        let mut options = Options {
            seed: seed_from_clock(),
            autoplay: None,
            screenshot: None,
            record: None,
            exit: false,
            radius: 10,
            monster_views: false,
        };
        while let Some(arg) = args.next_arg() {
            match arg.as_str() {
                "--seed" => options.seed = args.number("--seed")?,
                "--autoplay" => options.autoplay = Some(args.number("--autoplay")?),
                "--radius" => options.radius = args.number("--radius")?,
                "--screenshot" => options.screenshot = Some(args.value("--screenshot")?.into()),
                "--record" => options.record = Some(args.value("--record")?.into()),
                "--exit" => options.exit = true,
                "--monster-views" => options.monster_views = true,
                "--help" | "-h" => args.help(),
                other => return Err(args.unknown(other)),
            }
        }
        Ok(options)
    }
}
