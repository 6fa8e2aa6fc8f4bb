//! The random numbers of the ns-3 HPCC simulator's ECN marking, drawn as it draws them, so that
//! a run on its model marks the same packets it marks.
//!
//! That simulator (ns-3.18 under alibaba-edu/High-Precision-Congestion-Control) decides a mark
//! in the linear region with `UniformVariable(0, 1).GetValue() < p` (`SwitchMmu::ShouldSendCN`),
//! and gives each PFC frame an IP identification with `UniformVariable(0, 65536)`
//! (`QbbNetDevice::SendPfc`). Each such `UniformVariable` is a new object, whose first value
//! comes from a new stream of L'Ecuyer's MRG32k3a (`RngStream`, "An object-oriented
//! random-number package with many long streams and substreams", Operations Research 2002):
//! stream `k` of seed 1 starts `k × 2¹²⁷` steps in, substream `run` another `run × 2⁷⁶` steps
//! (`RngStream::RngStream` advances by `AdvanceNthBy(stream, 127)` and `AdvanceNthBy(run, 76)`),
//! and streams are numbered as objects ask for them (`RngSeedManager::GetNextStreamIndex`).
//!
//! [`Ns3Streams`] hands out those first values in order. The stream the first one comes from is
//! the number that simulator's set-up has taken (see `crate::from_model`), and the run is
//! `RngRun` (1 by default, rocelab's seed 1). Each value costs one 3×3 matrix-vector product
//! modulo each of the two moduli: the state of stream `k + 1` is that of stream `k` advanced by
//! 2¹²⁷ steps, a fixed matrix.

/// MRG32k3a's first modulus.
const M1: u64 = 4_294_967_087;
/// Its second modulus.
const M2: u64 = 4_294_944_443;
/// 1 / (M1 + 1), as `RngStream::RandU01` scales (its literal 2.328306549295727688e-10 is this
/// double).
const NORM: f64 = 1.0 / (M1 as f64 + 1.0);

type Matrix = [[u64; 3]; 3];

/// The one-step transition matrices of the two component generators (x_n = 1403580 x_{n-2} −
/// 810728 x_{n-3} mod M1, y_n = 527612 y_{n-1} − 1370589 y_{n-3} mod M2).
const A1: Matrix = [[0, 1, 0], [0, 0, 1], [M1 - 810_728, 1_403_580, 0]];
const A2: Matrix = [[0, 1, 0], [0, 0, 1], [M2 - 1_370_589, 0, 527_612]];

fn mat_mul(a: &Matrix, b: &Matrix, m: u64) -> Matrix {
    let mut r = [[0u64; 3]; 3];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            let s: u128 = (0..3).map(|k| a[i][k] as u128 * b[k][j] as u128).sum();
            *cell = (s % m as u128) as u64;
        }
    }
    r
}

fn mat_vec(a: &Matrix, v: &[u64; 3], m: u64) -> [u64; 3] {
    let mut r = [0u64; 3];
    for (i, x) in r.iter_mut().enumerate() {
        let s: u128 = (0..3).map(|k| a[i][k] as u128 * v[k] as u128).sum();
        *x = (s % m as u128) as u64;
    }
    r
}

/// `a` to the power 2^`k`, by `k` squarings.
fn pow2k(a: &Matrix, k: u32, m: u64) -> Matrix {
    let mut r = *a;
    for _ in 0..k {
        r = mat_mul(&r, &r, m);
    }
    r
}

/// `a` to the power `e`.
fn pow(a: &Matrix, mut e: u64, m: u64) -> Matrix {
    let mut r = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
    let mut p = *a;
    while e > 0 {
        if e & 1 == 1 {
            r = mat_mul(&r, &p, m);
        }
        p = mat_mul(&p, &p, m);
        e >>= 1;
    }
    r
}

/// The first values of consecutive MRG32k3a streams, as the ns-3 simulator's throw-away
/// `UniformVariable` objects draw them.
#[derive(Clone, Debug)]
pub struct Ns3Streams {
    /// The state of the next stream's start: the two components.
    x: [u64; 3],
    y: [u64; 3],
    /// Advance by one stream (2¹²⁷ steps).
    jump1: Matrix,
    jump2: Matrix,
    /// Streams handed out.
    pub taken: u64,
}

impl Ns3Streams {
    /// Streams of seed 1 (`RngSeed`) and run `run` (`RngRun`), the first handed out being
    /// stream number `first`.
    pub fn new(first: u64, run: u64) -> Self {
        let (jump1, jump2) = (pow2k(&A1, 127, M1), pow2k(&A2, 127, M2));
        let (sub1, sub2) = (pow2k(&A1, 76, M1), pow2k(&A2, 76, M2));
        let seed = [1u64; 3];
        let x = mat_vec(&pow(&jump1, first, M1), &mat_vec(&pow(&sub1, run, M1), &seed, M1), M1);
        let y = mat_vec(&pow(&jump2, first, M2), &mat_vec(&pow(&sub2, run, M2), &seed, M2), M2);
        Ns3Streams { x, y, jump1, jump2, taken: 0 }
    }

    /// The first value in [0, 1) of the next stream (`RngStream::RandU01`), which is then used
    /// up.
    pub fn next_uniform(&mut self) -> f64 {
        let (x, y) = (self.x, self.y);
        let p1 = (1_403_580 * x[1] as u128 + (M1 - 810_728) as u128 * x[0] as u128) % M1 as u128;
        let p2 = (527_612 * y[2] as u128 + (M2 - 1_370_589) as u128 * y[0] as u128) % M2 as u128;
        self.skip();
        let (p1, p2) = (p1 as f64, p2 as f64);
        if p1 > p2 {
            (p1 - p2) * NORM
        } else {
            (p1 - p2 + M1 as f64) * NORM
        }
    }

    /// Use up the next stream without its value (a PFC frame's IP identification).
    pub fn skip(&mut self) {
        self.x = mat_vec(&self.jump1, &self.x, M1);
        self.y = mat_vec(&self.jump2, &self.y, M2);
        self.taken += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The values as that simulator printed them, with 17 significant digits (each the double).
    #[allow(clippy::excessive_precision)]
    #[test]
    fn the_first_values_are_the_ns3_simulators() {
        // The first ECN decisions of the reference run incast16_dcqcn (star17: 18 nodes, so the
        // set-up has taken 6 × 18 + 2 = 110 streams), as that simulator drew them (a build with
        // the draws printed, model unchanged; its outputs identical to the reference).
        let mut s = Ns3Streams::new(110, 1);
        for want in [0.208_339_315_684_181_13, 0.946_537_882_760_139_17, 0.108_951_592_040_697_86] {
            assert_eq!(s.next_uniform(), want);
        }
        // And of the 320-host fat tree (376 nodes: stream 2258 first).
        let mut s = Ns3Streams::new(2258, 1);
        assert_eq!(s.next_uniform(), 0.350_151_305_746_164_1);
        assert_eq!(s.next_uniform(), 0.841_127_325_071_600_26);
        assert_eq!(s.taken, 2);
    }

    #[test]
    fn skipping_a_stream_is_drawing_it() {
        let mut a = Ns3Streams::new(7, 3);
        let mut b = a.clone();
        a.skip();
        b.next_uniform();
        assert_eq!(a.next_uniform(), b.next_uniform());
    }

    #[test]
    fn the_jump_is_the_matrix_power() {
        // Stream 1 computed directly equals stream 0 advanced by one jump; run 0 of stream 0 is
        // the seed itself, whose first RandU01 is MRG32k3a's first output from (1, 1, 1).
        let mut a = Ns3Streams::new(0, 0);
        let b = Ns3Streams::new(1, 0);
        a.skip();
        assert_eq!((a.x, a.y), (b.x, b.y));
        let mut s = Ns3Streams::new(0, 0);
        let p1 = (1_403_580u64 - 810_728) % M1;
        let p2 = (M2 + 527_612 - 1_370_589) % M2;
        assert_eq!(s.next_uniform(), (p1 as f64 - p2 as f64 + M1 as f64) * NORM);
    }
}
