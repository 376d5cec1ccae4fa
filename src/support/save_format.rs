//! The format version every save of this crate carries (feature `serde`): a saved
//! [`Viewshed`](crate::Viewshed), [`ExploredMemory`](crate::ExploredMemory) (and so a
//! [`FogOfWar`](crate::FogOfWar)), [`LastSeen`](crate::LastSeen) and
//! [`TerrainMemory`](crate::TerrainMemory) are written with
//! `"format": SAVE_FORMAT`. A save without the field is read as this format; a save of another
//! format is an error that says which format it is and which this version reads, never a
//! silently wrong load.

/// The save format this version of the crate writes and reads.
pub const SAVE_FORMAT: u32 = 1;

/// The format of a save that does not say (serde's default for the field).
pub(crate) fn unspecified() -> u32 {
    SAVE_FORMAT
}

/// Whether a save of `format` can be read; `what` names the saved type for the error.
pub(crate) fn check(format: u32, what: &str) -> Result<(), String> {
    if format == SAVE_FORMAT {
        Ok(())
    } else {
        Err(format!(
            "a saved {what} has format {format}, and this version of bevy_viewshed reads format \
             {SAVE_FORMAT} only"
        ))
    }
}
