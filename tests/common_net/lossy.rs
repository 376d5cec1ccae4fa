//! A link between the server and the clients that loses and delays messages, as the internet
//! does: each message of an unreliable channel (replicon's mutations) is lost one time in
//! three, and every message is late by up to [`MOST_DELAY`] frames, so that unreliable ones
//! overtake each other while reliable ones keep their order (a reliable transport resends what
//! is lost, which the receiver sees as lateness). Without losses, every message arrives at the
//! next client frame, as over replicon's test helpers.

use bevy::prelude::*;
use bevy_replicon::prelude::*;
use bevy_replicon::shared::backend::channels::{Channel, RepliconChannels};

/// The most frames a message is late.
pub const MOST_DELAY: u64 = 3;

/// One message on its way.
struct InFlight {
    /// The frame it arrives in.
    at: u64,
    channel: usize,
    message: Vec<u8>,
}

/// The messages on their way, to and from each of the two clients.
pub struct Lossy {
    rng: u64,
    /// Whether messages are lost and late now.
    pub losses: bool,
    frame: u64,
    to_client: [Vec<InFlight>; 2],
    to_server: [Vec<InFlight>; 2],
}

impl Lossy {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: seed | 1,
            losses: true,
            frame: 0,
            to_client: Default::default(),
            to_server: Default::default(),
        }
    }

    fn random(&mut self, below: u64) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % below
    }

    /// The next frame: messages sent from now on leave in it.
    pub fn next_frame(&mut self) {
        self.frame += 1;
    }

    /// Client `i` left: what was on its way to it or from it is gone with the connection.
    pub fn forget(&mut self, i: usize) {
        self.to_client[i].clear();
        self.to_server[i].clear();
    }

    /// Puts a message on its way (or loses it): when it arrives, by its channel's kind.
    fn schedule(
        &mut self,
        toward_client: bool,
        i: usize,
        kind: Channel,
        channel: usize,
        message: Vec<u8>,
    ) {
        let mut at = self.frame;
        if self.losses {
            if kind == Channel::Unreliable && self.random(3) == 0 {
                return;
            }
            at += self.random(MOST_DELAY + 1);
        }
        let queue = if toward_client {
            &mut self.to_client[i]
        } else {
            &mut self.to_server[i]
        };
        if kind == Channel::Ordered {
            // Not before what left earlier on the same channel.
            let earlier = queue.iter().filter(|m| m.channel == channel).map(|m| m.at);
            at = earlier.fold(at, u64::max);
        }
        queue.push(InFlight {
            at,
            channel,
            message,
        });
    }

    /// Takes the messages sent since the last call between the server and client `i`
    /// (`client` is its entity on the server) onto the link, and hands each side the messages
    /// that arrive in this frame.
    pub fn carry(&mut self, server: &mut App, client_app: &mut App, i: usize, client: Entity) {
        let channels = server.world().resource::<RepliconChannels>().clone();
        let sent: Vec<(usize, Vec<u8>)> = client_app
            .world_mut()
            .resource_mut::<ClientMessages>()
            .drain_sent()
            .map(|(channel, message)| (channel, message.to_vec()))
            .collect();
        for (channel, message) in sent {
            let kind = channels.client_channels()[channel];
            self.schedule(false, i, kind, channel, message);
        }
        let mut to_client = Vec::new();
        server
            .world_mut()
            .resource_mut::<ServerMessages>()
            .retain_sent(|(to, channel, message)| {
                if *to != client {
                    return true;
                }
                to_client.push((*channel, message.to_vec()));
                false
            });
        for (channel, message) in to_client {
            let kind = channels.server_channels()[channel];
            self.schedule(true, i, kind, channel, message);
        }
        let frame = self.frame;
        for arrived in take_arrived(&mut self.to_server[i], frame) {
            let mut messages = server.world_mut().resource_mut::<ServerMessages>();
            messages.insert_received(client, arrived.channel, arrived.message);
        }
        for arrived in take_arrived(&mut self.to_client[i], frame) {
            let mut messages = client_app.world_mut().resource_mut::<ClientMessages>();
            messages.insert_received(arrived.channel, arrived.message);
        }
    }
}

/// The messages of `queue` that arrive by `frame`, in the order they were sent.
fn take_arrived(queue: &mut Vec<InFlight>, frame: u64) -> Vec<InFlight> {
    let (arrived, later) = std::mem::take(queue)
        .into_iter()
        .partition(|message| message.at <= frame);
    *queue = later;
    arrived
}
