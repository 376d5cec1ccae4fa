//! The command line: what it may ask for (`--help` prints it) and how it is read.

use std::path::PathBuf;

use bevy::prelude::*;

use crate::fog_mode::FogMode;
use crate::shared_args::{Args, or_exit, seed_from_clock};

const USAGE: &str = "usage: dungeon [--seed N] [--radius N] [--monster-views] \
                     [--fog smooth|tiles] [--zoom Z] [--autoplay TURNS] [--screenshot PATH] \
                     [--record GIF] [--exit]";

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
    /// How the fog is drawn at the start (`f` switches).
    pub fog: FogMode,
    /// How many pixels a pixel of the tileset takes: 1 shows the whole map with the camera
    /// still, more follows the player.
    pub zoom: f32,
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
            fog: FogMode::Smooth,
            zoom: 2.0,
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
                "--fog" => options.fog = FogMode::parse(&args.value("--fog")?)?,
                "--zoom" => options.zoom = args.number("--zoom")?,
                "--help" | "-h" => args.help(),
                other => return Err(args.unknown(other)),
            }
        }
        if !(options.zoom >= 1.0 && options.zoom <= 8.0) {
            return Err(format!("--zoom {} is not from 1 to 8", options.zoom));
        }
        Ok(options)
    }
}
