//! TCP NewReno and DCTCP — PLACEHOLDER: the helper replaces this file.

use crate::error::ConfigResult;
use crate::net::packet::Packet;
use crate::protocols::{EndpointEvent, FlowSetup, SenderStats, TransportConfig};
use crate::units::{Rate, Time};

#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    pub dctcp: bool,
    pub mss: u32,
    pub header: u32,
}

impl TcpParams {
    pub fn from_config(cfg: &TransportConfig) -> ConfigResult<TcpParams> {
        Ok(TcpParams {
            dctcp: cfg.protocol == "dctcp",
            mss: 1460,
            header: 40,
        })
    }
    pub fn ecn_threshold_pkts(&self, _rate: Rate) -> Option<u32> {
        None
    }
}

pub struct TcpSender;
pub struct TcpReceiver;

impl TcpSender {
    pub fn new(_p: &TcpParams, _f: &FlowSetup) -> TcpSender {
        TcpSender
    }
    pub fn start(&mut self, _now: Time) {}
    pub fn handle_packet(&mut self, _now: Time, _pkt: &Packet) {}
    pub fn handle_timeout(&mut self, _now: Time) {}
    pub fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        None
    }
    pub fn poll_timeout(&self) -> Option<Time> {
        None
    }
    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        None
    }
    pub fn stats(&self) -> SenderStats {
        SenderStats::default()
    }
    pub fn bytes_in_flight(&self) -> u64 {
        0
    }
}

impl TcpReceiver {
    pub fn new(_p: &TcpParams, _f: &FlowSetup) -> TcpReceiver {
        TcpReceiver
    }
    pub fn handle_packet(&mut self, _now: Time, _pkt: &Packet) {}
    pub fn handle_timeout(&mut self, _now: Time) {}
    pub fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        None
    }
    pub fn poll_timeout(&self) -> Option<Time> {
        None
    }
    pub fn poll_event(&mut self) -> Option<EndpointEvent> {
        None
    }
    pub fn bytes_delivered(&self) -> u64 {
        0
    }
}
