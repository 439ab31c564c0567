//! Numbers as people read them: bits with a KiB figure, pause quanta, microseconds.

/// `126224` → `126 224` (groups of three for long numbers).
pub fn grouped(n: f64) -> String {
    let digits = format!("{}", n.round() as i128);
    let (sign, digits) = digits.strip_prefix('-').map_or(("", digits.as_str()), |d| ("-", d));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

/// Bits as KiB (or MiB above 10 MiB) of buffer: `126224` → `15.4 KiB`.
pub fn kib_of_bits(bits: f64) -> String {
    let kib = bits / 8.0 / 1024.0;
    if kib >= 10240.0 {
        format!("{:.1} MiB", kib / 1024.0)
    } else {
        format!("{kib:.1} KiB")
    }
}

/// Bits in full and as KiB: `126 224 bits (15.4 KiB)`.
pub fn bits(bits: f64) -> String {
    format!("{} bits ({})", grouped(bits), kib_of_bits(bits))
}

/// Octets in full and as KiB: `1 048 576 octets (1024.0 KiB)`.
pub fn octets(octets: f64) -> String {
    format!("{} octets ({})", grouped(octets), kib_of_bits(octets * 8.0))
}

/// Pause quanta (512 bit times each).
pub fn quanta(q: f64) -> String {
    format!("{} quanta", grouped(q))
}

/// Picoseconds as µs.
pub fn micros_of_ps(ps: f64) -> String {
    format!("{:.3} µs", ps / 1e6)
}

/// A priority set (`p0 p3`, as the bits type writes it) as `0,3`; `-` when empty.
pub fn priorities(bits: &str) -> String {
    let v: Vec<&str> = bits.split_whitespace().map(|p| p.trim_start_matches('p')).collect();
    if v.is_empty() {
        "-".into()
    } else {
        v.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_well() {
        assert_eq!(grouped(126224.0), "126 224");
        assert_eq!(grouped(12.0), "12");
        assert_eq!(bits(126224.0), "126 224 bits (15.4 KiB)");
        assert_eq!(kib_of_bits(240e6), "28.6 MiB");
        assert_eq!(priorities("p0 p3"), "0,3");
        assert_eq!(priorities(""), "-");
        assert_eq!(micros_of_ps(4_403_000.0), "4.403 µs");
    }

    #[test]
    fn octets_read_as_octets_not_bits() {
        assert_eq!(octets(1_048_576.0), "1 048 576 octets (1024.0 KiB)");
    }
}
