//! On a lightyear client (feature `lightyear`): the server's messages that reach the client
//! after its connection has closed are dropped, so that they cannot be applied to the next
//! connection.
//!
//! lightyear 0.30 reads every `Client`'s transport into replicon's `ClientMessages`, connected
//! or not (`receive_client_packets` in lightyear_replication). replicon clears them only when
//! its client leaves `ClientState::Connected`, and applies them when it next enters it: what a
//! closed connection delivered late is applied to the next one, as if its server had sent it.
//! Entities the server has despawned since, or that the client's team no longer sees, spawn on
//! the client, and no later message despawns them. `tests/lightyear.rs` found it: a client
//! reconnected twice in a row held an entity the server had despawned. lightyear's query
//! lacking `With<Connected>` is the whole fault; this guard is that filter, applied after the
//! fact.

use bevy::prelude::*;
use bevy_replicon::prelude::{ClientMessages, ClientSystems, RepliconChannels};
use lightyear_connection::client::{Client, Connected};

/// Drops what lightyear read in this frame (and any before) while it has a `Client` and none
/// of them is connected. A client that connects in this frame is `Connected` already, and
/// keeps its first messages (replicon applies them on entering `ClientState::Connected`). An
/// app with no lightyear `Client` (replicon over another backend) is left alone.
fn drop_messages_of_a_closed_connection(
    clients: Query<Has<Connected>, With<Client>>,
    channels: Res<RepliconChannels>,
    mut messages: ResMut<ClientMessages>,
) {
    if clients.is_empty() || clients.iter().any(|connected| connected) {
        return;
    }
    for channel in 0..channels.server_channels().len() {
        let dropped = messages.drain_received(channel).count();
        if dropped > 0 {
            debug!("bevy_viewshed: dropped {dropped} message(s) of a closed lightyear connection");
        }
    }
}

/// Runs [`drop_messages_of_a_closed_connection`] between lightyear's receiving and replicon's,
/// in apps with replicon's client.
pub(super) fn add_closed_session_guard(app: &mut App) {
    app.add_systems(
        PreUpdate,
        drop_messages_of_a_closed_connection
            .after(ClientSystems::ReceivePackets)
            .before(ClientSystems::Receive)
            .run_if(resource_exists::<ClientMessages>),
    );
}
