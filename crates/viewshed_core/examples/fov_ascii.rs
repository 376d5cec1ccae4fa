//! Prints what the viewer `@` of a text map sees: visible cells keep their character, the
//! others become spaces (the reference cases' output format). No window, no GPU.
//!
//! ```text
//! cargo run --example fov_ascii -- assets/maps/dungeon.map
//! cargo run --example fov_ascii -- - --radius 6 --no-light-walls < my.map
//! cargo run --example fov_ascii -- assets/maps/pillars.map --permissive
//! cargo run --example fov_ascii -- assets/maps/pillars.map --shape chebyshev --cone 0,90
//! cargo run --example fov_ascii -- assets/maps/pillars.map --hex row-odd --radius 6
//! ```
//!
//! `--hex SYSTEM` reads the map's cells as hexagons in one of bevy_ecs_tilemap's coordinate
//! systems (`row`, `column`, `row-even`, `row-odd`, `column-even`, `column-odd`) and draws
//! each at its hexagon's centre, offset rows or columns shifted by half a hexagon.
//!
//! `--cone FACING,WIDTH` takes degrees; 0 faces right and, as rows are numbered down the
//! text, 90 faces down.

use std::io::Read;
use std::process::ExitCode;

use viewshed_core::ascii::AsciiMap;
use viewshed_core::{
    DistanceShape, Fov, FovMode, FovOptions, HexCoords, HexFov, Radius, VisibleSet, VisionCone,
};

const USAGE: &str = "usage: fov_ascii MAP_FILE|- [--radius N] [--no-light-walls] \
                     [--shape euclidean|chebyshev|manhattan] [--permissive] [--cone FACING,WIDTH] \
                     [--hex row|column|row-even|row-odd|column-even|column-odd]";

struct Args {
    path: String,
    radius: Option<u32>,
    light_walls: bool,
    shape: DistanceShape,
    mode: FovMode,
    cone: Option<VisionCone>,
    hex: Option<HexCoords>,
}

fn parse_cone(value: &str) -> Option<VisionCone> {
    let (facing, width) = value.split_once(',')?;
    let (facing, width) = (facing.trim().parse().ok()?, width.trim().parse().ok()?);
    Some(VisionCone::degrees(facing, width))
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut path, mut radius, mut light_walls) = (None, None, true);
    let (mut shape, mut mode, mut cone) = (DistanceShape::Euclidean, FovMode::Symmetric, None);
    let mut hex = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--radius" => {
                let value = args.next().ok_or("--radius needs a number")?;
                radius = Some(value.parse().map_err(|_| {
                    format!(
                        "--radius must be a whole number from 0 to {}, not {value:?}",
                        u32::MAX
                    )
                })?);
            }
            "--no-light-walls" => light_walls = false,
            "--permissive" => mode = FovMode::Permissive,
            "--shape" => {
                shape = match args.next().as_deref() {
                    Some("euclidean") => DistanceShape::Euclidean,
                    Some("chebyshev") => DistanceShape::Chebyshev,
                    Some("manhattan") => DistanceShape::Manhattan,
                    other => {
                        return Err(format!(
                            "--shape must be euclidean, chebyshev or manhattan, not {other:?}"
                        ));
                    }
                }
            }
            "--cone" => {
                let value = args.next().ok_or("--cone needs FACING,WIDTH in degrees")?;
                cone = Some(parse_cone(&value).ok_or_else(|| {
                    format!("--cone needs FACING,WIDTH in degrees, like 90,120, not {value:?}")
                })?);
            }
            "--hex" => {
                let value = args.next().ok_or("--hex needs a coordinate system")?;
                hex = Some(
                    value
                        .parse::<HexCoords>()
                        .map_err(|e| format!("--hex: {e}"))?,
                );
            }
            "-h" | "--help" => return Err(USAGE.into()),
            _ if path.is_none() && (arg == "-" || !arg.starts_with('-')) => path = Some(arg),
            _ => return Err(format!("unexpected argument {arg:?}; {USAGE}")),
        }
    }
    let path = path.ok_or_else(|| format!("no map file given; {USAGE}"))?;
    Ok(Args {
        path,
        radius,
        light_walls,
        shape,
        mode,
        cone,
        hex,
    })
}

fn run() -> Result<String, String> {
    let args = parse_args(std::env::args().skip(1))?;
    let text = if args.path == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("<stdin>: {e}"))?;
        text
    } else {
        std::fs::read_to_string(&args.path).map_err(|e| format!("{}: {e}", args.path))?
    };
    let name = if args.path == "-" {
        "<stdin>"
    } else {
        &args.path
    };
    let map = AsciiMap::parse(&text).map_err(|e| format!("{name}: {e}"))?;
    let options = FovOptions {
        radius: args.radius.map_or(map.radius, Radius::Limited),
        shape: args.shape,
        light_walls: args.light_walls,
        cone: args.cone,
        mode: args.mode,
    };
    let mut visible = VisibleSet::new();
    let Some(coords) = args.hex else {
        Fov::new()
            .compute(&map.grid, map.viewer, options, &mut visible)
            .map_err(|e| format!("{name}: {e}"))?;
        return Ok(map.draw_visible(&visible));
    };
    HexFov::new()
        .compute(&map.grid, coords, map.viewer, options, &mut visible)
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(map.draw_visible_hex(&visible, coords))
}

fn main() -> ExitCode {
    match run() {
        Ok(picture) => {
            print!("{picture}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("fov_ascii: {message}");
            ExitCode::FAILURE
        }
    }
}
