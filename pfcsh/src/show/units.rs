//! Numbers as people read them: grouped digits, octets with a binary prefix, bits with the
//! octets they make, pause quanta with the time they last, microseconds. With `--plain` every
//! figure is one bare number in the model's unit instead (octets, bits, quanta), ungrouped, so
//! that each table cell is one field for awk.

use std::sync::atomic::{AtomicBool, Ordering};

static PLAIN: AtomicBool = AtomicBool::new(false);

/// Figures as bare numbers in the model's units (`--plain`).
pub fn set_plain(plain: bool) {
    PLAIN.store(plain, Ordering::Relaxed);
}

fn plain() -> bool {
    PLAIN.load(Ordering::Relaxed)
}

fn bare(n: f64) -> String {
    format!("{}", n.round() as i128)
}

/// `126224` → `126 224` (groups of three for long numbers).
pub fn grouped(n: f64) -> String {
    if plain() {
        return bare(n);
    }
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

/// Octets with the binary prefix that keeps the figure under 1024: `27944` → `27.3 KiB`,
/// `8388608` → `8 MiB` (a whole figure without `.0`), `512` → `512 B`.
pub fn iec(octets: f64) -> String {
    if plain() {
        return bare(octets);
    }
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if octets.abs() < 1024.0 {
        return format!("{} B", grouped(octets));
    }
    let mut value = octets / 1024.0;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let figure = format!("{value:.1}");
    let figure = figure.strip_suffix(".0").unwrap_or(&figure);
    format!("{figure} {}", UNITS[unit])
}

/// Bits of buffer as octets with a binary prefix: `126224` → `15.4 KiB`.
pub fn kib_of_bits(bits: f64) -> String {
    if plain() {
        return bare(bits);
    }
    iec(bits / 8.0)
}

/// Bits in full and as KiB: `126 224 bits (15.4 KiB)`.
pub fn bits(bits: f64) -> String {
    if plain() {
        return bare(bits);
    }
    format!("{} bits ({})", grouped(bits), kib_of_bits(bits))
}

/// Octets in full and with a binary prefix: `1 048 576 octets (1 MiB)`.
pub fn octets(octets: f64) -> String {
    if plain() {
        return bare(octets);
    }
    format!("{} octets ({})", grouped(octets), kib_of_bits(octets * 8.0))
}

/// Pause quanta (512 bit times each).
pub fn quanta(q: f64) -> String {
    if plain() {
        return bare(q);
    }
    format!("{} quanta", grouped(q))
}

/// Pause quanta (512 bit times each) with the time they make at `bits_per_second`:
/// `47 051 quanta (2.41 ms)`; quanta alone when the speed is unknown.
pub fn quanta_at(q: f64, bits_per_second: Option<f64>) -> String {
    if plain() {
        return bare(q);
    }
    match bits_per_second.filter(|b| *b > 0.0) {
        Some(bps) => format!("{} ({})", quanta(q), duration(q * 512.0 / bps)),
        None => quanta(q),
    }
}

/// A round trip or pause in a table cell: its time at `bits_per_second` (quanta without a
/// speed); the bare quanta with `--plain`.
pub fn quanta_time(q: f64, bits_per_second: Option<f64>) -> String {
    match bits_per_second.filter(|b| *b > 0.0 && !plain()) {
        Some(bps) => duration(q * 512.0 / bps),
        None => quanta(q),
    }
}

/// Pause quanta in a table cell with their time: `43 964 (225 µs)`; `0` when none is left.
pub fn quanta_cell(q: f64, bits_per_second: Option<f64>) -> String {
    match bits_per_second.filter(|b| *b > 0.0 && q > 0.0 && !plain()) {
        Some(bps) => format!("{} ({})", grouped(q), duration(q * 512.0 / bps)),
        None => grouped(q),
    }
}

/// Seconds with the unit that keeps the figure readable: `2.41 ms`, `130 ns`.
pub fn duration(seconds: f64) -> String {
    let (value, unit) = if seconds == 0.0 {
        (0.0, "s")
    } else if seconds.abs() >= 1.0 {
        (seconds, "s")
    } else if seconds.abs() >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds.abs() >= 1e-6 {
        (seconds * 1e6, "µs")
    } else {
        (seconds * 1e9, "ns")
    };
    let figure = if value.abs() >= 100.0 || value == 0.0 {
        format!("{value:.0}")
    } else if value.abs() >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    };
    format!("{figure} {unit}")
}

/// A time of `value` units of `seconds_per_unit` each (the model's unit), as `duration` writes
/// it; with `--plain`, the bare value in the model's unit.
pub fn time_in(value: f64, seconds_per_unit: f64) -> String {
    if plain() {
        return bare(value);
    }
    duration(value * seconds_per_unit)
}

/// A time the model gives in microseconds.
pub fn micros(us: f64) -> String {
    time_in(us, 1e-6)
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
        assert_eq!(octets(1_048_576.0), "1 048 576 octets (1 MiB)");
        assert_eq!(quanta_at(47_051.0, Some(10e9)), "47 051 quanta (2.41 ms)");
        assert_eq!(quanta_at(3.0, None), "3 quanta");
        assert_eq!(duration(0.0), "0 s");
        assert_eq!(iec(27_944.0), "27.3 KiB");
        assert_eq!(iec(8.0 * 1024.0 * 1024.0), "8 MiB");
        assert_eq!(iec(512.0), "512 B");
    }
}
