//! A port as the command line names it: `NAME[,pfc=3+4][,prio=N][,pvid=N]
//! [,headroom=BITS|measured][,longest=METRES][,buffer=OCTETS][,lossy=OCTETS][,quanta=N]
//! [,tc=01234567][,watchdog=drop|forward|alert|off][,detect=MS][,restore=MS]
//! [,pause=honour|ignore]`.

use dataplane::time::Picos;
use dataplane::watchdog::Action;
use dataplane::wire::PRIORITIES;

use super::port::BridgePortSetup;

/// Parses one port spec; the message says what to fix.
pub fn parse_port(spec: &str) -> Result<BridgePortSetup, String> {
    let mut parts = spec.split(',');
    let name = parts.next().filter(|n| !n.is_empty()).ok_or("a port needs an interface name")?;
    let mut port = BridgePortSetup::new(name, 0);
    for part in parts {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| format!("'{part}' in port {name}: use key=value"))?;
        let number = |max: u64| -> Result<u64, String> {
            value
                .parse::<u64>()
                .ok()
                .filter(|v| *v <= max)
                .ok_or_else(|| format!("{key}={value} in port {name}: a number up to {max}"))
        };
        match key {
            "pfc" => port.pfc_enable = priorities(value).map_err(|e| format!("port {name}: {e}"))?,
            "prio" => port.default_priority = number(7)? as u8,
            "pvid" => port.pvid = number(4094)?.max(1) as u16,
            "headroom" if value == "measured" => port.measure = true,
            "headroom" => port.headroom_bits = number(u64::from(u32::MAX))?,
            "longest" => port.longest_link_metres = number(40_000_000)?.max(1),
            "buffer" => port.buffer.allocation_octets = Some(number(1 << 32)?),
            "lossy" => port.lossy_pool = number(1 << 32)?,
            "tc" => port.traffic_class = classes(value).map_err(|e| format!("port {name}: {e}"))?,
            "watchdog" => watchdog(&mut port, value).map_err(|e| format!("port {name}: {e}"))?,
            "detect" | "restore" => {
                let ms = number(MAX_WATCHDOG_MS)?.max(1);
                for c in &mut port.watchdog.classes {
                    if key == "detect" {
                        c.detection = Picos::from_ms(ms);
                    } else {
                        c.restoration = Picos::from_ms(ms);
                    }
                }
            }
            "pause" => {
                port.watchdog.ignore_link_pause = match value {
                    "ignore" => true,
                    "honour" => false,
                    _ => return Err(format!("pause={value} in port {name}: honour or ignore")),
                }
            }
            "quanta" => {
                port.pause_quanta = number(0xffff)?.max(2) as u16;
                port.refresh_quanta = port.pause_quanta / 2;
            }
            _ => {
                return Err(format!(
                    "'{key}' in port {name}: known keys are pfc, prio, pvid, headroom, longest, buffer, lossy, quanta, tc, watchdog, detect, restore, pause"
                ))
            }
        }
    }
    Ok(port)
}

/// The longest watchdog detection or restoration time a port spec takes, milliseconds.
const MAX_WATCHDOG_MS: u64 = 600_000;

/// `watchdog=ACTION` for every class of the port, or `off`.
fn watchdog(port: &mut BridgePortSetup, value: &str) -> Result<(), String> {
    let action = match value {
        "off" => None,
        _ => Some(
            Action::from_name(value)
                .ok_or_else(|| format!("watchdog={value}: drop, forward, alert or off"))?,
        ),
    };
    for c in &mut port.watchdog.classes {
        c.enabled = action.is_some();
        c.action = action.unwrap_or(c.action);
    }
    Ok(())
}

/// `3+4` (or `none`) as a PFC Enable vector.
fn priorities(value: &str) -> Result<u8, String> {
    if value == "none" {
        return Ok(0);
    }
    value.split('+').try_fold(0u8, |acc, p| match p.parse::<usize>() {
        Ok(n) if n < PRIORITIES => Ok(acc | 1 << n),
        _ => Err(format!("pfc={value}: priorities 0 to 7 joined by '+', e.g. pfc=3+4")),
    })
}

/// `01234567`: the traffic class of priorities 0 to 7, one digit each.
fn classes(value: &str) -> Result<super::port::TrafficClasses, String> {
    let digits: Vec<u8> = value.bytes().map(|b| b.wrapping_sub(b'0')).collect();
    match <[u8; PRIORITIES]>::try_from(digits) {
        Ok(c) if c.iter().all(|d| usize::from(*d) < PRIORITIES) => Ok(c),
        _ => Err(format!(
            "tc={value}: the traffic class of priorities 0 to 7, eight digits 0 to 7, e.g. tc=01233567"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_spec_sets_what_it_names() {
        let p = parse_port("veth0,pfc=3+4,prio=2,pvid=5,headroom=20000,quanta=1000,tc=01233567")
            .expect("ok");
        assert_eq!(p.traffic_class, [0, 1, 2, 3, 3, 5, 6, 7]);
        assert_eq!(p.name, "veth0");
        assert_eq!(p.pfc_enable, 0b0001_1000);
        assert_eq!((p.default_priority, p.pvid, p.headroom_bits), (2, 5, 20_000));
        assert_eq!((p.pause_quanta, p.refresh_quanta), (1000, 500));
        assert_eq!(parse_port("eth1").expect("ok").pfc_enable, 0);
        let p =
            parse_port("veth0,watchdog=forward,detect=50,restore=300,pause=ignore").expect("ok");
        let c = p.watchdog.classes[3];
        assert_eq!((c.enabled, c.action), (true, Action::Forward));
        assert_eq!((c.detection, c.restoration), (Picos::from_ms(50), Picos::from_ms(300)));
        assert!(p.watchdog.ignore_link_pause);
        assert!(!parse_port("veth0,watchdog=off").expect("ok").watchdog.classes[0].enabled);
    }

    #[test]
    fn mistakes_are_named() {
        assert!(parse_port("veth0,pfc=8").expect_err("refused").contains("priorities 0 to 7"));
        assert!(parse_port("veth0,prio=9").expect_err("refused").contains("up to 7"));
        assert!(parse_port("veth0,tc=0123").expect_err("refused").contains("eight digits"));
        assert!(parse_port("veth0,tc=01234568").expect_err("refused").contains("eight digits"));
        assert!(parse_port("veth0,colour=red").expect_err("refused").contains("known keys"));
        assert!(parse_port("veth0,pfc").expect_err("refused").contains("key=value"));
        assert!(parse_port("").is_err());
        assert!(parse_port("veth0,watchdog=panic").expect_err("refused").contains("drop, forward"));
        assert!(parse_port("veth0,detect=600001").expect_err("refused").contains("up to 600000"));
        assert!(parse_port("veth0,pause=maybe").expect_err("refused").contains("honour or ignore"));
    }
}
