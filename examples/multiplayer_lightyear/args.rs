//! The command line (`--help` prints it).

use std::path::PathBuf;

use bevy::prelude::*;

use crate::draw::Panel;
use crate::shared_args::{Args, or_exit};

const USAGE: &str = "usage: multiplayer_lightyear [--seed N] [--server] [--zoom Z] [--frames N] [--screenshot PATH] [--exit]";

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
pub struct Options {
    pub seed: u64,
    /// `--server`: the server's world on the left, team 0's client on the right (else team 0's
    /// client and team 1's).
    pub server: bool,
    /// How many window pixels a pixel of the tileset takes: 0.5 (the default) shows each
    /// panel's whole map, more follows team 0's first unit.
    pub zoom: f32,
    /// The report (and screenshot, exit) after this many frames with both clients' fog.
    pub frames: Option<u32>,
    pub screenshot: Option<PathBuf>,
    pub exit: bool,
}

impl Options {
    /// The options of this run; exits with the usage on `--help`, and with status 2 and the
    /// error on a bad argument.
    pub fn from_args() -> Self {
        or_exit("multiplayer_lightyear", Self::parse(&mut Args::new(USAGE)))
    }

    fn parse(args: &mut Args) -> Result<Self, String> {
        let mut options = Options {
            seed: 7,
            server: false,
            zoom: 0.5,
            frames: None,
            screenshot: None,
            exit: false,
        };
        while let Some(arg) = args.next_arg() {
            match arg.as_str() {
                "--seed" => options.seed = args.number("--seed")?,
                "--server" => options.server = true,
                "--zoom" => options.zoom = args.number("--zoom")?,
                "--frames" => options.frames = Some(args.number("--frames")?),
                "--screenshot" => options.screenshot = Some(args.value("--screenshot")?.into()),
                "--exit" => options.exit = true,
                "--help" | "-h" => args.help(),
                other => return Err(args.unknown(other)),
            }
        }
        Ok(options)
    }

    /// The window's panels, left to right.
    pub fn panels(&self) -> Vec<Panel> {
        match self.server {
            true => vec![Panel::Server, Panel::Client(0)],
            false => vec![Panel::Client(0), Panel::Client(1)],
        }
    }
}
