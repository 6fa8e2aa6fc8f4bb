//! The IPv4 and MAC addresses of the hosts' ports: what a capture shows in a frame's headers.
//!
//! A port takes the IPv4 address the fabric gives it ([`crate::spec::HostPortSpec::ipv4`], from
//! the model's `nics[].addresses`, which `rocelab config` also writes into the hosts' storage
//! attach commands). A port without one takes a made-up address in 10.0.0.0/8: a host's first
//! port the host's own, 10.0.0.0 plus its node index ([`node_ipv4`]), and its other ports the
//! addresses after the last node's, in node and port order, each passed over where the fabric
//! gives it to a port (then a first port takes the next one too). So a fabric of hosts with one
//! port each is addressed as before port addresses existed, and no two ports' addresses are
//! equal (the model refuses an address given twice).
//!
//! A port's MAC is locally administered: 02, the port's index on its host, then the node index in
//! four octets ([`node_mac`]); a host's first port has the host's own, as a bond has its first
//! member's MAC (Linux bonding gives the bond its first enslaved interface's address).
//!
//! A frame names its ends by routing address ([`crate::routing::port_address`], or the node for
//! a host reached as one): a host addressed as a whole (one port, or a bond) shows its first
//! port's IPv4 address, as a bond carries one address over its members.
//!
//! The switches' ECMP hash does not read these addresses: it mixes the 5-tuple of the nodes'
//! own addresses ([`node_ipv4`]) with each switch's seed ([`crate::routing::ecmp_select`]). A
//! vendor's hash function and seed are its own, so no input makes rocelab pick the paths a given
//! switch would; with the nodes' addresses, addressing a fabric changes what its captures show
//! and not the paths its flows take.

use crate::packet::node_ipv4;
use crate::routing::address_node;
use crate::spec::{NetworkSpec, NodeKind};
use std::collections::HashSet;

/// Locally administered MAC of port `local` of node `node`: 02, the port, the node in four
/// octets (02:00:… for a host's first port and for a switch).
pub fn node_mac(node: u32, local: u8) -> [u8; 6] {
    let n = node.to_be_bytes();
    [0x02, local, n[0], n[1], n[2], n[3]]
}

/// IPv4 and MAC addresses of every host port of a network.
#[derive(Clone, Debug, Default)]
pub struct AddressBook {
    /// Per node, the index in `ipv4` of its first port's address (switches have none: their
    /// entry is that of the next node, so the count is the difference).
    first: Vec<u32>,
    /// Per host port, in node then port order: its IPv4 address.
    ipv4: Vec<u32>,
}

impl AddressBook {
    /// The addresses of `spec`'s host ports (see the module's doc).
    pub fn new(spec: &NetworkSpec) -> Self {
        let mut book = AddressBook { first: Vec::with_capacity(spec.nodes.len() + 1), ipv4: Vec::new() };
        let hosts = || spec.nodes.iter().filter_map(|nd| if let NodeKind::Host(h) = &nd.kind { Some(h) } else { None });
        let given: HashSet<u32> = hosts().flat_map(|h| h.ports.iter().filter_map(|p| p.ipv4.map(u32::from))).collect();
        let mut next_made_up = spec.nodes.len() as u32;
        let mut made_up = || loop {
            next_made_up += 1;
            let a = node_ipv4(next_made_up - 1);
            if !given.contains(&a) {
                return a;
            }
        };
        for (node, nd) in spec.nodes.iter().enumerate() {
            book.first.push(book.ipv4.len() as u32);
            let NodeKind::Host(h) = &nd.kind else { continue };
            for (local, p) in h.ports.iter().enumerate() {
                let own = node_ipv4(node as u32);
                let a = match p.ipv4 {
                    Some(a) => u32::from(a),
                    None if local == 0 && !given.contains(&own) => own,
                    None => made_up(),
                };
                book.ipv4.push(a);
            }
        }
        book.first.push(book.ipv4.len() as u32);
        book
    }

    /// The node and the host port (its index on the host) an address names: a port address's
    /// port, or port 0 for a node's own address.
    fn port_of(address: u32) -> (u32, u32) {
        (address_node(address), (address >> 24).saturating_sub(1))
    }

    /// IPv4 address (as a big-endian `u32`) of the host port `address` names; a node with no
    /// such port (a switch) has 10.0.0.0 plus its index.
    pub fn ipv4(&self, address: u32) -> u32 {
        let (node, local) = Self::port_of(address);
        let n = node as usize;
        match (self.first.get(n), self.first.get(n + 1)) {
            (Some(&a), Some(&b)) if a + local < b => self.ipv4[(a + local) as usize],
            _ => node_ipv4(node),
        }
    }

    /// MAC address of the host port `address` names ([`node_mac`]).
    pub fn mac(&self, address: u32) -> [u8; 6] {
        let (node, local) = Self::port_of(address);
        node_mac(node, local as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::port_address;
    use crate::spec::{HostPortSpec, HostSpec, NodeSpec, SwitchSpec};
    use std::net::Ipv4Addr;

    fn host(ports: &[Option<Ipv4Addr>]) -> NodeSpec {
        let ports = ports.iter().map(|&ipv4| HostPortSpec { ipv4, ..Default::default() }).collect();
        NodeSpec { name: "h".into(), kind: NodeKind::Host(HostSpec { ports, ..Default::default() }) }
    }

    fn switch() -> NodeSpec {
        NodeSpec { name: "s".into(), kind: NodeKind::Switch(SwitchSpec::default()) }
    }

    #[test]
    fn a_hosts_first_port_has_the_hosts_address_and_its_others_follow_the_last_node() {
        // h0 (one port), s1, h2 (three ports), h3 (two ports): four nodes, so the made-up
        // addresses of the second and later ports are 10.0.0.4, 10.0.0.5, 10.0.0.6.
        let spec = NetworkSpec {
            nodes: vec![host(&[None]), switch(), host(&[None; 3]), host(&[None; 2])],
            ..Default::default()
        };
        let book = AddressBook::new(&spec);
        let ip = |a| Ipv4Addr::from(book.ipv4(a)).to_string();
        assert_eq!(ip(0), "10.0.0.0");
        assert_eq!(ip(1), "10.0.0.1", "a switch has its node's");
        assert_eq!((ip(2), ip(port_address(2, 0))), ("10.0.0.2".into(), "10.0.0.2".into()));
        assert_eq!((ip(port_address(2, 1)), ip(port_address(2, 2))), ("10.0.0.4".into(), "10.0.0.5".into()));
        assert_eq!((ip(port_address(3, 0)), ip(port_address(3, 1))), ("10.0.0.3".into(), "10.0.0.6".into()));
        assert_eq!(ip(port_address(3, 2)), "10.0.0.3", "a port beyond the host's own is the node's");
        assert_eq!(book.mac(port_address(3, 1)), [2, 1, 0, 0, 0, 3]);
        assert_eq!(book.mac(3), [2, 0, 0, 0, 0, 3]);
    }

    #[test]
    fn a_port_given_an_address_shows_it() {
        let given = Some(Ipv4Addr::new(192, 168, 10, 21));
        let spec = NetworkSpec {
            nodes: vec![host(&[None, given]), host(&[given.map(|_| [192, 168, 10, 1].into())])],
            ..Default::default()
        };
        let book = AddressBook::new(&spec);
        assert_eq!(Ipv4Addr::from(book.ipv4(port_address(0, 1))), Ipv4Addr::new(192, 168, 10, 21));
        assert_eq!(Ipv4Addr::from(book.ipv4(port_address(0, 0))), Ipv4Addr::new(10, 0, 0, 0));
        assert_eq!(
            Ipv4Addr::from(book.ipv4(1)),
            Ipv4Addr::new(192, 168, 10, 1),
            "a host reached as one shows its first port's"
        );
    }

    #[test]
    fn a_made_up_address_passes_over_the_addresses_the_fabric_gives() {
        // Three nodes: made-up addresses would be 10.0.0.0-10.0.0.2 for the first ports, then
        // 10.0.0.3 on. h0's second port is given h2's own, h1's is given 10.0.0.3.
        let (own2, next) = (Some(Ipv4Addr::new(10, 0, 0, 2)), Some(Ipv4Addr::new(10, 0, 0, 3)));
        let spec = NetworkSpec {
            nodes: vec![host(&[None, own2]), host(&[None, next]), host(&[None, None])],
            ..Default::default()
        };
        let book = AddressBook::new(&spec);
        let ip = |a| Ipv4Addr::from(book.ipv4(a)).to_string();
        assert_eq!((ip(0), ip(port_address(0, 1))), ("10.0.0.0".into(), "10.0.0.2".into()));
        assert_eq!((ip(1), ip(port_address(1, 1))), ("10.0.0.1".into(), "10.0.0.3".into()));
        // h2's own address is taken, so its first port takes the next free one after the
        // nodes' (10.0.0.3 is taken too), and its second port the one after.
        assert_eq!((ip(2), ip(port_address(2, 1))), ("10.0.0.4".into(), "10.0.0.5".into()));
        let all: HashSet<String> = [0, port_address(0, 1), 1, port_address(1, 1), 2, port_address(2, 1)].map(ip).into();
        assert_eq!(all.len(), 6, "every port its own address: {all:?}");
    }
}
