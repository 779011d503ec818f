//! Client addresses: address ranges (`10.0.0.0/8`, `::1`) as the configuration names them, and
//! the address a request came from — its peer, or, when the peer is a configured trusted proxy,
//! the address that proxy says it forwarded for (`X-Forwarded-For`, read from the right: the
//! nearest address no trusted proxy owns). A header from anyone else is ignored, so a client
//! cannot choose the address it is counted under.

use axum::http::HeaderMap;
use std::net::IpAddr;

/// An IPv4 or IPv6 address range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpNet {
    addr: IpAddr,
    prefix: u8,
}

impl IpNet {
    /// `a.b.c.d/n`, `x::y/n`, or one address (a range of one).
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (addr, prefix) = text
            .split_once('/')
            .map_or((text, None), |(a, p)| (a, Some(p)));
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| format!("{text:?} is not an IP address or range"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("{text:?}: the prefix length must be 0 to {max}"))?,
        };
        Ok(Self { addr, prefix })
    }

    /// A comma-separated list of ranges.
    pub fn parse_list(text: &str) -> Result<Vec<Self>, String> {
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(Self::parse)
            .collect()
    }

    pub fn contains(&self, addr: IpAddr) -> bool {
        let addr = canonical(addr);
        match (self.addr, addr) {
            (IpAddr::V4(net), IpAddr::V4(a)) => {
                masked(u32::from(net).into(), 32, self.prefix)
                    == masked(u32::from(a).into(), 32, self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(a)) => {
                masked(u128::from(net), 128, self.prefix) == masked(u128::from(a), 128, self.prefix)
            }
            _ => false,
        }
    }
}

fn masked(bits: u128, width: u8, prefix: u8) -> u128 {
    if prefix == 0 {
        0
    } else {
        bits >> (width - prefix)
    }
}

/// An IPv4 address that arrived as IPv6 (`::ffff:a.b.c.d`) is that IPv4 address.
pub fn canonical(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(addr, IpAddr::V4),
        v4 => v4,
    }
}

/// The address limits count a client under: IPv4 as it is, IPv6 by its /56 — a home or a
/// small office is normally given a /56 (256 networks of a /64 each), so counting single IPv6
/// addresses, or /64s, would let one subscriber pick a new one for every request (a /56 held
/// about 10,000 seats when limits counted /64s). The audit log keeps the full address.
pub fn bucket(addr: IpAddr) -> IpAddr {
    match canonical(addr) {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 72) - 1);
            IpAddr::V6(bits.into())
        }
        v4 => v4,
    }
}

/// One `X-Forwarded-For` entry: an address, or an address with a port (`1.2.3.4:5678`,
/// `[2001:db8::1]:443`), as some proxies write them.
fn forwarded_addr(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    if let Ok(addr) = hop.parse::<IpAddr>() {
        return Some(addr);
    }
    if let Some(rest) = hop.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    hop.rsplit_once(':')?
        .0
        .parse::<std::net::Ipv4Addr>()
        .ok()
        .map(IpAddr::V4)
}

/// Loopback and private ranges: where a metrics scraper normally is.
pub fn private_ranges() -> Vec<IpNet> {
    [
        "127.0.0.0/8",
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "::1",
        "fc00::/7",
    ]
    .iter()
    .map(|r| IpNet::parse(r).expect("valid range"))
    .collect()
}

/// The client a request came from: `peer` itself, unless `peer` is one of `trusted` proxies,
/// then the `X-Forwarded-For` address the nearest trusted proxy received the request from: the
/// list is read from the right, past the trusted proxies, and the first other address is the
/// client. What stands left of it was written by the client and is never read. An entry that
/// is not an address where the client should be counts as the peer.
pub fn client_addr(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let peer = canonical(peer);
    let is_trusted = |a: IpAddr| trusted.iter().any(|net| net.contains(a));
    if !is_trusted(peer) {
        return peer;
    }
    let values: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .map(|v| v.to_str().unwrap_or(""))
        .collect();
    for hop in values.iter().rev().flat_map(|v| v.rsplit(',')) {
        match forwarded_addr(hop).map(canonical) {
            Some(addr) if is_trusted(addr) => continue,
            Some(addr) => return addr,
            None => return peer,
        }
    }
    peer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_client_is_counted_by_its_64_and_an_ipv4_one_by_itself() {
        assert_eq!(bucket(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1::"));
        assert_eq!(bucket(ip("2001:db8:1:ff:ffff::9")), ip("2001:db8:1::"));
        assert_eq!(
            bucket(ip("2001:db8:1:3::1")),
            ip("2001:db8:1::"),
            "another /64 of the /56"
        );
        assert_ne!(
            bucket(ip("2001:db8:1:100::1")),
            ip("2001:db8:1::"),
            "another /56"
        );
        assert_eq!(bucket(ip("198.51.100.7")), ip("198.51.100.7"));
        assert_eq!(bucket(ip("::ffff:198.51.100.7")), ip("198.51.100.7"));
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ranges_contain_their_addresses_only() {
        let net = IpNet::parse("10.1.0.0/16").unwrap();
        assert!(net.contains(ip("10.1.200.3")));
        assert!(!net.contains(ip("10.2.0.1")));
        assert!(net.contains(ip("::ffff:10.1.0.9")), "IPv4-mapped IPv6");
        assert!(IpNet::parse("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
        let one = IpNet::parse("2001:db8::1").unwrap();
        assert!(one.contains(ip("2001:db8::1")));
        assert!(!one.contains(ip("2001:db8::2")));
        assert!(IpNet::parse("fc00::/7").unwrap().contains(ip("fd12::1")));
        for bad in ["10.0.0.0/33", "nonsense", "::/129", "10.0.0.0/x"] {
            assert!(IpNet::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(IpNet::parse_list(" 10.0.0.0/8, ::1 ").unwrap().len(), 2);
    }

    #[test]
    fn the_forwarded_address_counts_only_from_a_trusted_proxy() {
        let trusted = IpNet::parse_list("10.0.0.0/8").unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            "198.51.100.7, 203.0.113.9".parse().unwrap(),
        );
        // From a proxy we trust: the address it received the request from.
        assert_eq!(
            client_addr(ip("10.0.0.2"), &headers, &trusted),
            ip("203.0.113.9")
        );
        // From anyone else: the header is theirs to invent, so the peer counts.
        assert_eq!(
            client_addr(ip("192.0.2.1"), &headers, &trusted),
            ip("192.0.2.1")
        );
        // A chain of trusted proxies is skipped.
        headers.insert("x-forwarded-for", "198.51.100.7, 10.0.0.5".parse().unwrap());
        assert_eq!(
            client_addr(ip("10.0.0.2"), &headers, &trusted),
            ip("198.51.100.7")
        );
        // Whatever the client wrote left of the proxy's entry is never read.
        headers.insert("x-forwarded-for", "garbage, 203.0.113.9".parse().unwrap());
        assert_eq!(
            client_addr(ip("10.0.0.2"), &headers, &trusted),
            ip("203.0.113.9")
        );
        // Entries with a port, as some proxies write them.
        headers.insert("x-forwarded-for", "203.0.113.9:5123".parse().unwrap());
        assert_eq!(
            client_addr(ip("10.0.0.2"), &headers, &trusted),
            ip("203.0.113.9")
        );
        headers.insert("x-forwarded-for", "[2001:db8::7]:443".parse().unwrap());
        assert_eq!(
            client_addr(ip("10.0.0.2"), &headers, &trusted),
            ip("2001:db8::7")
        );
        // Garbage where the client should be: the peer.
        headers.insert("x-forwarded-for", "not an address".parse().unwrap());
        assert_eq!(
            client_addr(ip("10.0.0.2"), &headers, &trusted),
            ip("10.0.0.2")
        );
        // No trusted proxies configured (the default): always the peer.
        assert_eq!(client_addr(ip("10.0.0.2"), &headers, &[]), ip("10.0.0.2"));
    }
}
