//! A failed request as one sentence for the user (and the few sentences every command shares:
//! a refused commit, a port pfcd does not have): the rpc-error's path in `set` words and its
//! message, or what the client says went wrong (connection, credentials, host key).

use netconf_client::Error;

/// `error-path` (an XPath with prefixes and key predicates) in the words `set` takes:
/// `/if:interfaces/if:interface[if:name='lab2']/dot1q:bridge-port` → `interfaces interface
/// lab2 bridge-port`.
pub fn path_words(xpath: &str) -> String {
    let mut words = Vec::new();
    let mut depth = 0;
    let mut step = String::new();
    let mut steps = Vec::new();
    for c in xpath.chars() {
        match c {
            '[' => {
                depth += 1;
                step.push(c);
            }
            ']' => {
                depth -= 1;
                step.push(c);
            }
            '/' if depth == 0 => {
                if !step.is_empty() {
                    steps.push(std::mem::take(&mut step));
                }
            }
            c => step.push(c),
        }
    }
    if !step.is_empty() {
        steps.push(step);
    }
    for s in steps {
        let (name, predicates) = s.split_once('[').map_or((s.as_str(), ""), |(n, p)| (n, p));
        words.push(name.rsplit(':').next().unwrap_or(name).to_string());
        for p in predicates.split('[') {
            let p = p.trim_end_matches(']');
            if let Some((_, v)) = p.split_once('=') {
                words.push(crate::words::quote(v.trim().trim_matches(|c| c == '\'' || c == '"')));
            }
        }
    }
    words.join(" ")
}

/// One line saying what went wrong with `what` (e.g. "commit").
pub fn sentence(what: &str, error: &Error) -> String {
    match error {
        Error::Rpc(reply) => {
            let mut parts = Vec::new();
            for e in reply.errors().iter().filter(|e| e.is_error()) {
                let message = e
                    .error_message
                    .clone()
                    .unwrap_or_else(|| format!("{} ({})", e.error_tag, e.error_type));
                let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
                parts.push(match e.error_path.as_deref().filter(|p| !p.is_empty()) {
                    Some(p) => format!("at `{}`: {message}", path_words(p)),
                    None => message,
                });
            }
            format!("{what} refused: {}", parts.join("; "))
        }
        other => format!("{what} failed: {other}"),
    }
}

/// The error of a request about `what`, as [`sentence`] says it.
pub(crate) fn err(what: &str) -> impl Fn(netconf_client::Error) -> String + '_ {
    move |e| sentence(what, &e)
}

/// A refused commit as one line, saying the candidate is kept.
pub(crate) fn refused(what: &str, e: &netconf_client::Error) -> String {
    format!(
        "{}; the candidate keeps your changes (fix them with set/delete, or discard)",
        sentence(what, e)
    )
}

/// `pfcd has no port 'lab9' (its ports: lab0 lab1 …)`.
pub fn no_such_port(port: &str, ports: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut list = ports.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(" ");
    if ports.len() > SHOWN {
        list += &format!(" … ({} ports; Tab completes them)", ports.len());
    }
    format!("pfcd has no port '{port}' (its ports: {list})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_paths_become_set_words() {
        assert_eq!(
            path_words("/if:interfaces/if:interface[if:name='lab2']/dot1q:bridge-port/pfc-bridge:pfc/pfc-bridge:pfc-headroom-allowance"),
            "interfaces interface lab2 bridge-port pfc pfc-headroom-allowance"
        );
        assert_eq!(
            path_words(
                "/lldp:lldp/lldp:port[lldp:name='lab0'][lldp:dest-mac-address='01-80-C2-00-00-0E']"
            ),
            "lldp port lab0 01-80-C2-00-00-0E"
        );
    }
}
