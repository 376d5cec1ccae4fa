//! The command line: `--seed N`, `--view 0|1|2|3|spectator`, `--autoplay FRAMES`,
//! `--screenshot PATH`, `--record PATH` (with `--autoplay`: a GIF of the scripted battle),
//! `--exit`.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_viewshed::Team;

use crate::shared_args::{Args, or_exit, seed_from_clock};

const USAGE: &str = "usage: rts_skirmish [--seed N] [--view 0|1|2|3|spectator] \
                     [--autoplay FRAMES] [--screenshot PATH] [--record PATH] [--exit]";

#[derive(Resource, Clone, Debug)]
pub struct Options {
    pub seed: u64,
    /// The team whose fog is drawn at the start.
    pub view: Team,
    /// Frames to play by script before the report (`None`: played by hand).
    pub autoplay: Option<u64>,
    pub screenshot: Option<PathBuf>,
    /// Where to write the film of the scripted battle.
    pub record: Option<PathBuf>,
    pub exit: bool,
}

impl Options {
    pub fn from_args() -> Self {
        or_exit("rts_skirmish", Self::parse(Args::new(USAGE)))
    }

    fn parse(mut args: Args) -> Result<Self, String> {
        let mut options = Self {
            seed: seed_from_clock(),
            view: Team(0),
            autoplay: None,
            screenshot: None,
            record: None,
            exit: false,
        };
        while let Some(arg) = args.next_arg() {
            match arg.as_str() {
                "--seed" => options.seed = args.number("--seed")?,
                "--view" => options.view = view(&args.value("--view")?)?,
                "--autoplay" => options.autoplay = Some(args.number("--autoplay")?),
                "--screenshot" => options.screenshot = Some(args.value("--screenshot")?.into()),
                "--record" => options.record = Some(args.value("--record")?.into()),
                "--exit" => options.exit = true,
                "--help" | "-h" => args.help(),
                other => return Err(args.unknown(other)),
            }
        }
        Ok(options)
    }
}

/// The team `--view` names.
fn view(name: &str) -> Result<Team, String> {
    match name {
        "spectator" => Ok(Team::SPECTATOR),
        "0" | "1" | "2" | "3" => Ok(Team(name.parse().unwrap_or(0))),
        other => Err(format!("--view: {other:?} is not 0, 1, 2, 3 or spectator")),
    }
}
