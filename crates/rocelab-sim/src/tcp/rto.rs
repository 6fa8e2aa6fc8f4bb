//! Round-trip time estimation and the retransmission timeout (RFC 6298).

use crate::time::Time;

/// Where the minimum RTO applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoPolicy {
    /// RFC 6298 §2.4: RTO = max(min, SRTT + max(G, 4·RTTVAR)), G = 1 ms (a clock granularity of
    /// 1 ms, as Linux's jiffies at HZ = 1000).
    Rfc6298,
    /// Linux (`tcp_set_rto`, `tcp_rtt_estimator`): the minimum floors the variance term,
    /// RTO = SRTT + max(min, 4·RTTVAR), so in a data centre the RTO is about SRTT + 200 ms.
    Linux,
}

/// Clock granularity G of RFC 6298.
const GRANULARITY: Time = crate::time::MS;

/// SRTT, RTTVAR and the backed-off RTO of one sender (RFC 6298 §2 and §5).
#[derive(Clone, Copy, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    initial: Time,
    min: Time,
    max: Time,
    policy: RtoPolicy,
    backoff: u32,
}

impl RttEstimator {
    /// An estimator without samples: the RTO is `initial` until the first sample.
    pub fn new(initial: Time, min: Time, max: Time, policy: RtoPolicy) -> Self {
        RttEstimator { srtt: None, rttvar: 0, initial, min, max, policy, backoff: 0 }
    }

    /// A new RTT measurement (RFC 6298 §2.2-2.3, α = 1/8, β = 1/4). Clears the backoff (§5.7
    /// lets the backed-off RTO stand until new data is acknowledged; a valid sample implies it).
    pub fn sample(&mut self, rtt: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = rtt / 2;
            }
            Some(srtt) => {
                let err = srtt.abs_diff(rtt);
                self.rttvar = self.rttvar - self.rttvar / 4 + err / 4;
                self.srtt = Some(srtt - srtt / 8 + rtt / 8);
            }
        }
        self.backoff = 0;
    }

    /// Smoothed RTT, if any sample was taken.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// The RTO before backoff.
    pub fn base_rto(&self) -> Time {
        let Some(srtt) = self.srtt else { return self.initial.clamp(self.min, self.max) };
        let var = 4 * self.rttvar;
        let rto = match self.policy {
            RtoPolicy::Rfc6298 => (srtt + var.max(GRANULARITY)).max(self.min),
            RtoPolicy::Linux => srtt + var.max(self.min),
        };
        rto.min(self.max)
    }

    /// The RTO in force: the base doubled once per expiry (RFC 6298 §5.5), at most `max`.
    pub fn rto(&self) -> Time {
        let base = self.base_rto();
        base.saturating_mul(1u64 << self.backoff.min(40)).min(self.max)
    }

    /// The timer expired: back off.
    pub fn on_timeout(&mut self) {
        self.backoff = self.backoff.saturating_add(1);
    }

    /// New data was acknowledged: drop the backoff (§5.7, as Linux does on a forward ACK).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Expiries since the last forward progress.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SECOND, US};

    #[test]
    fn first_sample_and_smoothing_follow_rfc6298() {
        let mut r = RttEstimator::new(SECOND, 200 * MS, 120 * SECOND, RtoPolicy::Rfc6298);
        assert_eq!(r.rto(), SECOND, "initial RTO before any sample");
        r.sample(100 * MS);
        // SRTT = R, RTTVAR = R/2, RTO = R + 4·R/2 = 3R.
        assert_eq!(r.srtt(), Some(100 * MS));
        assert_eq!(r.rto(), 300 * MS);
        r.sample(200 * MS);
        // RTTVAR = 3/4·50 + 1/4·100 = 62.5 ms; SRTT = 7/8·100 + 1/8·200 = 112.5 ms.
        assert_eq!(r.srtt(), Some(112_500 * US));
        assert_eq!(r.rto(), 112_500 * US + 250 * MS);
    }

    #[test]
    fn minimum_applies_per_policy() {
        let mut rfc = RttEstimator::new(SECOND, 200 * MS, 120 * SECOND, RtoPolicy::Rfc6298);
        let mut linux = RttEstimator::new(SECOND, 200 * MS, 120 * SECOND, RtoPolicy::Linux);
        for _ in 0..50 {
            rfc.sample(20 * US);
            linux.sample(20 * US);
        }
        assert_eq!(rfc.rto(), 200 * MS, "RFC 6298: clamped to the minimum");
        let srtt = linux.srtt().unwrap();
        assert_eq!(linux.rto(), srtt + 200 * MS, "Linux: SRTT plus the floor");
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum() {
        let mut r = RttEstimator::new(SECOND, 200 * MS, 60 * SECOND, RtoPolicy::Rfc6298);
        let mut seen = vec![];
        for _ in 0..8 {
            seen.push(r.rto() / MS);
            r.on_timeout();
        }
        assert_eq!(seen, vec![1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
        r.reset_backoff();
        assert_eq!(r.rto(), SECOND);
    }
}
