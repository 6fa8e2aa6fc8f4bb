//! The applications on top of the queue pairs: what posts work requests, when, and what a
//! completion or a delivered message does. A flow posts its bytes as messages; perftest's
//! bandwidth tests keep `tx_depth` messages outstanding; its latency tests ping-pong (WRITE,
//! SEND) or read again at each completion (READ). Times are those the application sees: a
//! completion after the NIC's completion latency, a delivered message once it is in memory.
//! A work request posted at `t` is ready in the NIC at `t` plus its transmit latency.

use super::rdma::{QpRt, REQUESTER};
use super::Sim;
use crate::observer::Observer;
use crate::perftest::{bw_report, lat_report, PerftestLength, PerftestResults, PerftestSpec};
use crate::rdma::Completion;
use crate::time::Time;

/// What drives a queue pair.
#[derive(Clone, Copy, Debug)]
pub(crate) enum App {
    /// A flow: `remaining` bytes to post (`u64::MAX`: unlimited) in messages of at most
    /// `message_bytes`, `depth` outstanding, nothing posted from `stop` on.
    Flow { remaining: u64, message_bytes: u64, depth: u32, stop: Time, next_id: u64 },
    /// A perftest bandwidth QP: `remaining` messages to post (duration mode: unlimited until
    /// `until`).
    Bw { test: u32, remaining: u64, until: Time },
    /// One side of a perftest ping-pong; `partner` is the QP that answers from the other host.
    /// `answered`: on the server's QP, the pings it has answered (so the server numbers its
    /// answers from what it saw itself, not from the client's state).
    PingPong { test: u32, partner: u32, client: bool, answered: u64 },
    /// perftest READ latency.
    ReadLat { test: u32 },
    /// A queue pair of storage session `session` in `role` (see [`crate::storage::plan`]):
    /// the storage layer posts on it and hears of its completions and deliveries.
    Storage { session: u32, role: u8 },
}

/// Runtime state of one perftest test.
pub(crate) struct PerftestRt {
    pub spec: PerftestSpec,
    /// Its flows, in [`PerftestSpec::flows`] order.
    pub flows: Vec<u32>,
    /// Post time of message `id` (bandwidth) or of iteration `k` (latency).
    pub posted: Vec<Time>,
    /// Completion time of message `id` (bandwidth); `Time::MAX` until it completes.
    pub completed: Vec<Time>,
    pub planned: Option<u64>,
    pub done: u64,
    pub complete: bool,
}

impl PerftestRt {
    pub fn new(spec: PerftestSpec, flows: Vec<u32>) -> Self {
        let planned = match spec.length {
            PerftestLength::Iterations(n) if spec.test.is_bw() => Some(n * spec.qps as u64),
            PerftestLength::Iterations(n) => Some(n),
            PerftestLength::Duration(_) => None,
        };
        let cap = planned.unwrap_or(0).min(1 << 20) as usize;
        PerftestRt {
            spec,
            flows,
            posted: Vec::with_capacity(cap),
            completed: Vec::with_capacity(if spec.test.is_bw() { cap } else { 0 }),
            planned,
            done: 0,
            complete: false,
        }
    }

    /// The test's results at the end of a run at `end`.
    pub fn results(&self, index: usize, end: Time) -> PerftestResults {
        let s = &self.spec;
        // A duration test is complete once its duration has passed.
        let complete = match s.length {
            PerftestLength::Duration(d) => end >= s.start_ps.saturating_add(d),
            PerftestLength::Iterations(_) => self.complete,
        };
        let (bw, lat) = if s.test.is_bw() {
            let (p, c): (Vec<Time>, Vec<Time>) = self
                .posted
                .iter()
                .zip(&self.completed)
                .filter(|(_, c)| **c != Time::MAX)
                .map(|(p, c)| (*p, *c))
                .unzip();
            (bw_report(s.size, &p, &c), None)
        } else {
            (None, lat_report(s.size, &self.posted, s.test.rtt_factor()))
        };
        PerftestResults {
            test: index,
            kind: s.test,
            client: s.client,
            server: s.server,
            flows: self.flows.iter().map(|&f| f as usize).collect(),
            planned: self.planned,
            complete,
            bw,
            lat,
        }
    }
}

impl<O: Observer> Sim<'_, O> {
    /// Post a message of `len` bytes on QP `q` at `at` (the application's time).
    fn post(&mut self, q: u32, id: u64, len: u64, at: Time) {
        let op = self.qps[q as usize].op;
        self.post_op(q, id, op, len, at);
    }

    /// Post a work request doing `op` on QP `q` at `at`; the NIC may start on it after its
    /// transmit latency.
    pub(super) fn post_op(&mut self, q: u32, id: u64, op: crate::rdma::RdmaOp, len: u64, at: Time) {
        let qp = &mut self.qps[q as usize];
        let ready = at + qp.timing[REQUESTER as usize].tx_latency;
        qp.req.post(id, op, len, ready);
        self.rc_kick(q, REQUESTER);
    }

    /// An RC flow starts: its application posts its first messages.
    pub(super) fn app_start(&mut self, q: u32) {
        let now = self.now;
        match self.qps[q as usize].app {
            App::PingPong { test, client: true, .. } => self.pingpong_post(q, test, now),
            App::ReadLat { test } => self.readlat_post(q, test, now),
            _ => self.app_fill(q, now),
        }
    }

    /// Post what a flow or bandwidth QP may at `at`: up to its depth.
    fn app_fill(&mut self, q: u32, at: Time) {
        loop {
            let qp = &mut self.qps[q as usize];
            let outstanding = qp.req.outstanding_requests();
            let next = match &mut qp.app {
                App::Flow { remaining, message_bytes, depth, stop, next_id } => {
                    if *remaining == 0 || at >= *stop || outstanding >= *depth as usize {
                        None
                    } else {
                        let len = (*remaining).min(*message_bytes);
                        if *remaining != u64::MAX {
                            *remaining -= len;
                        }
                        *next_id += 1;
                        Some((*next_id - 1, len))
                    }
                }
                App::Bw { test, remaining, until } => {
                    let rt = &mut self.tests[*test as usize];
                    if *remaining == 0 || at >= *until || outstanding >= rt.spec.depth() as usize {
                        None
                    } else {
                        if *remaining != u64::MAX {
                            *remaining -= 1;
                        }
                        let id = rt.posted.len() as u64;
                        rt.posted.push(at);
                        rt.completed.push(Time::MAX);
                        Some((id, rt.spec.size))
                    }
                }
                _ => None,
            };
            match next {
                Some((id, len)) => self.post(q, id, len, at),
                None => return,
            }
        }
    }

    /// The client of a ping-pong posts its next iteration at `at`, if any is left.
    fn pingpong_post(&mut self, q: u32, test: u32, at: Time) {
        let rt = &mut self.tests[test as usize];
        if rt.planned.is_some_and(|n| rt.posted.len() as u64 >= n) {
            rt.complete = true;
            return;
        }
        let id = rt.posted.len() as u64;
        rt.posted.push(at);
        let size = rt.spec.size;
        self.post(q, id, size, at);
    }

    /// READ latency: the next READ at `at`, if any is left.
    fn readlat_post(&mut self, q: u32, test: u32, at: Time) {
        self.pingpong_post(q, test, at);
    }

    /// A work request of QP `q` completed, made by a frame's arrival at host port `port`; the
    /// application sees it at `visible`.
    pub(super) fn app_completed(&mut self, q: u32, c: Completion, visible: Time, port: u32) {
        let now = self.now;
        match self.qps[q as usize].app {
            App::Flow { remaining, stop, .. } => {
                let qp: &QpRt = &self.qps[q as usize];
                let f = qp.flow as usize;
                let idle = qp.req.outstanding_requests() == 0;
                if remaining == 0 && idle {
                    let flow = &mut self.flows[f];
                    flow.finished_sending = true;
                    if flow.spec.size_bytes.is_some() && flow.completed_at.is_none() {
                        flow.completed_at = Some(now);
                        self.flow_done_on(now, port);
                    }
                } else if visible >= stop && idle {
                    // Stopped: nothing more is posted, and the last message is done.
                    self.flows[f].finished_sending = true;
                } else {
                    self.app_fill(q, visible);
                }
            }
            App::Bw { test, .. } => {
                let rt = &mut self.tests[test as usize];
                if let Some(slot) = rt.completed.get_mut(c.id as usize) {
                    *slot = visible;
                }
                rt.done += 1;
                if rt.planned == Some(rt.done) {
                    rt.complete = true;
                }
                self.app_fill(q, visible);
            }
            App::ReadLat { test } => self.readlat_post(q, test, visible),
            App::PingPong { .. } => {}
            App::Storage { session, role } => self.storage_completed(session, role, c, visible),
        }
    }

    /// A SEND or WRITE message of QP `q` is in the responder's memory at `visible`.
    pub(super) fn app_delivered(&mut self, q: u32, visible: Time) {
        if let App::Storage { session, role } = self.qps[q as usize].app {
            self.storage_delivered(session, role, visible);
            return;
        }
        if let App::PingPong { test, partner, client, .. } = self.qps[q as usize].app {
            if client {
                // The server saw the ping: it answers on its QP. The answer to ping k (from 0)
                // is numbered k + 1, counted here at the server: the client's count of its pings
                // is kept at the client.
                let size = self.tests[test as usize].spec.size;
                let id = match &mut self.qps[partner as usize].app {
                    App::PingPong { answered, .. } => {
                        *answered += 1;
                        *answered
                    }
                    _ => unreachable!("the partner of a ping-pong QP is the other ping-pong QP"),
                };
                self.post(partner, id, size, visible);
            } else {
                // The client saw the pong: next iteration.
                self.pingpong_post(partner, test, visible);
            }
        }
    }

    /// Results of every test.
    pub(super) fn perftest_results(&self) -> Vec<PerftestResults> {
        self.tests.iter().enumerate().map(|(i, t)| t.results(i, self.end)).collect()
    }
}
