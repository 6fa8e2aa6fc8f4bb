//! The ns-3 HPCC simulator's PFC trace, `pfc.txt`, written as a run goes: one line per PFC
//! frame *received*, as that simulator's `get_pfc` (`scratch/third.cc` of
//! alibaba-edu/High-Precision-Congestion-Control) prints its `QbbPfc` trace:
//!
//! ```text
//! <time ns> <node id> <node type: 0 host, 1 switch> <ifindex> <1 pause, 0 resume>
//! ```
//!
//! The node id is the simulator's node index (an imported HPCC topology keeps its ids), the
//! ifindex the port's index on its node plus one (that simulator's device 0 is the loopback and
//! devices follow in link order, as an imported topology's ports do). A frame that pauses or
//! resumes several priorities is one line per priority, as that simulator sends a frame per
//! queue.

use rocelab_sim::observer::{Direction, Observer};
use rocelab_sim::pfc::PfcFrame;
use rocelab_sim::spec::{NetworkSpec, NodeKind};
use rocelab_sim::Time;
use std::io::Write;

/// An observer that writes `pfc.txt` lines to `W` as PFC frames arrive.
pub struct PfcTrace<W: Write> {
    out: W,
    /// Per global port: (node, node type, ifindex).
    ports: Vec<(u32, u8, u32)>,
    lines: u64,
    error: Option<std::io::Error>,
}

impl<W: Write> PfcTrace<W> {
    /// A trace of the ports of `spec` into `out`.
    pub fn new(out: W, spec: &NetworkSpec) -> Self {
        let mut ports = Vec::new();
        for (node, n) in spec.nodes.iter().enumerate() {
            let kind = match n.kind {
                NodeKind::Host(_) => 0,
                NodeKind::Switch(_) => 1,
            };
            for local in 0..spec.port_count(node) {
                ports.push((node as u32, kind, local as u32 + 1));
            }
        }
        PfcTrace { out, ports, lines: 0, error: None }
    }

    /// Flush, and the number of lines written, or the first write error.
    pub fn finish(mut self) -> std::io::Result<u64> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.lines)
    }

    /// Flush, and the writer the trace went into, or the first write error.
    pub fn into_inner(mut self) -> std::io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Observer for PfcTrace<W> {
    fn on_pfc(&mut self, time: Time, port: usize, frame: &PfcFrame, dir: Direction) {
        if dir != Direction::Rx || self.error.is_some() {
            return;
        }
        let Some(&(node, kind, ifindex)) = self.ports.get(port) else { return };
        for prio in 0..8 {
            if frame.class_enable & (1 << prio) == 0 {
                continue;
            }
            let pause = u8::from(frame.quanta[prio] > 0);
            if let Err(e) = writeln!(self.out, "{} {node} {kind} {ifindex} {pause}", time / 1000) {
                self.error = Some(e);
                return;
            }
            self.lines += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocelab_sim::topology::{single_switch, FabricDefaults};
    use rocelab_sim::{FlowClass, FlowSpec, SimConfig, Traffic, MS, NS};

    #[test]
    fn a_frame_per_priority_as_received_with_the_simulators_ids() {
        let spec = single_switch(2, 100_000_000_000, 100 * NS, &FabricDefaults::lossless(3, 100_000)).spec;
        let mut t = PfcTrace::new(Vec::new(), &spec);
        // Node 2 is the switch: its second port is global port 3, ifindex 2.
        let xoff = PfcFrame::from_masks(0b1000, 0b1000, 0xFFFF);
        t.on_pfc(2_500_000, 3, &xoff, Direction::Rx);
        t.on_pfc(2_600_000, 0, &PfcFrame::from_masks(0b1010, 0b0010, 10), Direction::Rx);
        t.on_pfc(2_700_000, 0, &xoff, Direction::Tx);
        let lines = t.lines;
        let text = String::from_utf8(t.out).unwrap();
        assert_eq!(text, "2500 2 1 2 1\n2600 0 0 1 1\n2600 0 0 1 0\n");
        assert_eq!(lines, 3);
    }

    #[test]
    fn a_run_that_pauses_writes_its_frames() {
        // Three senders into one receiver at line rate with a small buffer: the switch pauses
        // the senders; every line is a frame a sender received (node type 0).
        let mut d = FabricDefaults::lossless(3, 100_000);
        d.switch.buffer.size_bytes = 2_000_000;
        let f = single_switch(4, 100_000_000_000, 100 * NS, &d);
        let mut traffic = Traffic::new();
        traffic.incast(&f.hosts[1..], f.hosts[0], &FlowSpec::sized(0, 0, FlowClass::roce(3, 26), 4 << 20));
        let mut trace = PfcTrace::new(Vec::new(), &f.spec);
        let r = rocelab_sim::run_with_observer(&f.spec, &traffic, &SimConfig::new(1, 2 * MS), &mut trace).unwrap();
        let received: u64 = r.ports.iter().map(|p| p.total(|c| c.pfc_received)).sum();
        let n = trace.lines;
        let text = String::from_utf8(trace.out).unwrap();
        assert!(n > 0 && n == received, "{n} lines, {received} frames received");
        assert!(text.lines().all(|l| l.split(' ').nth(2) == Some("0")), "{text}");
    }
}
