//! One command line at a time, in operational or configuration mode, on one NETCONF
//! session ([`Session::execute`]). Every failure is returned as the one line to print; the
//! candidate is never touched by a failed command (the server keeps it as it was).

use serde_json::Value;

use crate::config_path::{self, Step};
use crate::data;
use crate::rpc_error::{err, no_such_port, refused};
use crate::session::{Flow, Format, Mode, Session};
use crate::show::{self, filters};
use crate::words::split;

impl Session {
    /// Runs one command line and its pipes; output taller than the terminal is paged when a
    /// person is at it.
    pub fn execute(&mut self, line: &str) -> Result<Flow, String> {
        self.config_cache = None;
        let typed: Vec<String> = split(line).into_iter().map(|w| w.text).collect();
        let (typed, pipes) = crate::pipe::split(&typed)?;
        if typed.first().is_some_and(|w| "monitor".starts_with(w.as_str()) && !w.is_empty()) {
            return self.run_command(line, &typed);
        }
        *self.captured.borrow_mut() = Some(String::new());
        let outcome = self.run_command(line, &typed);
        let text = self.captured.borrow_mut().take().unwrap_or_default();
        let text = crate::pipe::apply(&pipes, &text);
        let rows = if self.interactive && !pipes.no_more {
            crate::terminal::size().map(|(_, rows)| rows)
        } else {
            None
        };
        crate::pipe::page(&text, rows);
        outcome
    }

    fn run_command(&mut self, line: &str, typed: &[String]) -> Result<Flow, String> {
        let words = crate::grammar::expand(self.mode, typed)?;
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        let config = self.mode == Mode::Configuration;
        if !matches!(w.as_slice(), ["exit" | "quit"]) {
            self.warned_exit = false;
        }
        match w.as_slice() {
            [] => {}
            ["exit" | "quit"] if config => {
                if self.leave_configuration()? {
                    self.say("left configuration mode");
                }
            }
            ["exit" | "quit"] => {
                if self.quit_allowed()? {
                    return Ok(Flow::Quit);
                }
            }
            ["help"] => self.say(crate::cli::SYNTAX),
            ["configure"] if !config => {
                self.mode = Mode::Configuration;
                self.say("Entering configuration mode (the candidate); `exit` leaves it.");
            }
            ["configure", "private"] if !config => {
                self.mode = Mode::Configuration;
                self.enter_private();
            }
            ["configure", "exclusive"] if !config => {
                self.enter_exclusive()?;
                self.mode = Mode::Configuration;
            }
            ["configure", ..] => self.say("already in configuration mode; `exit` leaves it"),
            ["show", "|", "compare"] | ["compare"] if config => self.compare()?,
            ["show", "configuration", path @ ..] => self.show_configuration(path)?,
            ["show", "interfaces", "pfc", "counters", port @ ..] => {
                let port = self.one_port(port)?;
                let time_paused = self.ctx.get_module_latest("pfcd-pfc").is_some();
                let lab = self.ctx.get_module_latest("pfcd-lab").is_some();
                let filter = filters::pfc_counters(port.as_deref(), time_paused, lab);
                let reply = self.get(&filter, false)?;
                let mut previous = std::mem::take(&mut self.pfc_counters);
                let printed =
                    self.print_reply(&reply, |v| show::pfc_counters::render(v, &mut previous));
                self.pfc_counters = previous;
                printed?
            }
            ["show", "interfaces", "pfc", port, "detail"] => {
                let port = self.one_port(&[port])?.unwrap_or_default();
                self.show(&filters::pfc_detail(&port), show::pfc::render_detail)?
            }
            ["show", "pfc", "watchdog", port @ ..] => self.show_watchdog(port)?,
            ["show", "interfaces", "pfc", port @ ..] => {
                let port = self.one_port(port)?;
                self.show(&filters::interfaces_pfc(port.as_deref()), |v| {
                    show::pfc::render(v, port.as_deref())
                })?
            }
            ["show", "headroom", port @ ..] => {
                let port = self.one_port(port)?;
                self.show(&filters::headroom(port.as_deref()), |v| {
                    show::headroom::render(v, port.as_deref())
                })?
            }
            ["show", "dcbx", port @ ..] => {
                let port = self.one_port(port)?;
                self.show(&filters::dcbx(port.as_deref()), |v| {
                    show::dcbx::render(v, port.as_deref())
                })?
            }
            ["show", "lldp", "neighbors" | "neighbours", rest @ ..] => {
                let detail = rest.last() == Some(&"detail");
                let port = self.one_port(if detail { &rest[..rest.len() - 1] } else { rest })?;
                self.show(&filters::lldp_neighbors(port.as_deref()), |v| {
                    show::lldp::render(v, detail)
                })?
            }
            ["show", "pipeline"] => {
                self.show_with_defaults(&filters::pipeline(), show::pipeline::render)?
            }
            ["show", "counters", port @ ..] => {
                let port = self.one_port(port)?;
                self.show(&filters::counters(port.as_deref()), show::counters::render)?
            }
            ["clear", "counters", port @ ..] => {
                let port = self.one_port(port)?;
                self.clear_counters(port.as_deref())?
            }
            ["request", "headroom", "measure", port] => {
                let port = self.one_port(&[port])?.unwrap_or_default();
                self.measure(&port)?
            }
            ["monitor"] => crate::monitor::run(self)?,
            ["set", path @ ..] if config => self.set(path)?,
            ["delete", path @ ..] if config => self.delete(path)?,
            ["commit"] if config => self.commit()?,
            ["commit", "and-quit"] if config => {
                self.commit()?;
                self.mode = Mode::Operational;
                self.say("left configuration mode");
            }
            ["commit", "check"] if config => {
                self.private_or_shared("commit check", |s| {
                    s.client
                        .rpc("<validate><source><candidate/></source></validate>")
                        .and_then(|r| r.into_result())
                        .map_err(|e| refused("commit check", &e))
                })?;
                self.say("configuration check succeeds");
            }
            ["commit", "confirmed"] if config => self.commit_confirmed(crate::confirm::DEFAULT)?,
            ["commit", "confirmed", time] if config => {
                self.commit_confirmed(crate::confirm::parse(time)?)?
            }
            ["rollback" | "discard"] | ["rollback", "0"] if config => {
                match self.private_edits() {
                    Some(edits) => edits.clear(),
                    None => self.client.discard_changes().map_err(err("discard"))?,
                }
                self.dirty = false;
                self.say("candidate reverted to running");
            }
            ["rollback", n] if config => {
                return Err(format!(
                    "pfcd keeps no earlier configurations to roll back to (`rollback {n}`): \
                     `rollback` (or `rollback 0`) throws the candidate's changes away"
                ))
            }
            ["set" | "delete" | "commit" | "rollback" | "discard", ..] if !config => {
                return Err(format!(
                    "`{}` works in configuration mode: type `configure` first",
                    w[0]
                ))
            }
            _ => return Err(format!("unknown command `{}`: press ? or type help", line.trim())),
        }
        Ok(Flow::Continue)
    }

    /// A message: a line of text, or `{"message": …}` with `--json` (one JSON value a line).
    pub fn say(&self, text: &str) {
        match self.format {
            Format::Json => self.emit(&format!("{}\n", serde_json::json!({ "message": text }))),
            _ => self.emit(&format!("{text}\n")),
        }
    }

    /// `port` checked against the ports the server has: a show of a port that does not exist
    /// would print an empty table and succeed.
    fn one_port(&mut self, words: &[&str]) -> Result<Option<String>, String> {
        let port = one_port(words)?;
        if let Some(p) = port {
            let ports = self.ports();
            // No list (running unreadable): the server answers for the port itself.
            if !ports.is_empty() && !ports.iter().any(|known| known == p) {
                return Err(no_such_port(p, &ports));
            }
        }
        Ok(port.map(str::to_string))
    }

    /// Fetches `filter` with `<get>` and prints it as the format asks.
    fn show(&mut self, filter: &str, render: impl FnMut(&Value) -> String) -> Result<(), String> {
        let reply = self.get(filter, false)?;
        self.print_reply(&reply, render)
    }

    /// The same for a table that shows configuration the server may leave as defaults (with-
    /// defaults report-all: a pause mode never set is still the mode in force). Only where
    /// needed: report-all made `show interfaces pfc` on 64 ports four times slower.
    fn show_with_defaults(
        &mut self,
        filter: &str,
        render: impl FnMut(&Value) -> String,
    ) -> Result<(), String> {
        let reply = self.get(filter, true)?;
        self.print_reply(&reply, render)
    }

    fn print_reply(
        &self,
        reply: &netconf_client::Reply,
        render: impl FnMut(&Value) -> String,
    ) -> Result<(), String> {
        let xml = data::reply_data(reply, &self.ctx);
        self.print_data(&xml, render)
    }

    /// `show pfc watchdog [PORT]`: every port named, those without watchdog state said so.
    fn show_watchdog(&mut self, port: &[&str]) -> Result<(), String> {
        let port = self.one_port(port)?;
        let ports = match &port {
            Some(p) => vec![p.clone()],
            None => self.ports(),
        };
        if self.ctx.get_module_latest("pfcd-watchdog").is_none() {
            self.say(
                "no watchdog on this port: pfcd reports no PFC watchdog (module pfcd-watchdog)",
            );
            return Ok(());
        }
        match self.get(&filters::watchdog(port.as_deref()), true) {
            Ok(reply) => self.print_reply(&reply, |v| show::watchdog::render(v, &ports)),
            Err(e) => Err(format!("{e}; no watchdog state to show")),
        }
    }

    /// `<get>` of `filter`; a table that asks for them gets the defaults too (`--json` and
    /// `--xml` print the data as the server keeps it).
    fn get(&mut self, filter: &str, defaults: bool) -> Result<netconf_client::Reply, String> {
        match self.format {
            Format::Table if defaults => self
                .client
                .rpc(&format!(
                    "<get><filter type=\"subtree\">{filter}</filter><with-defaults \
                     xmlns=\"{WITH_DEFAULTS_NS}\">report-all</with-defaults></get>"
                ))
                .and_then(|r| r.into_result()),
            _ => self.client.get(Some(filter)),
        }
        .map_err(err("show"))
    }

    fn print_data(
        &self,
        xml: &str,
        mut render: impl FnMut(&Value) -> String,
    ) -> Result<(), String> {
        let text = match self.format {
            Format::Xml => format!("{}\n", xml.trim()),
            Format::Json => data::json_line(&self.ctx, xml)?,
            Format::Table => render(&data::xml_to_value(&self.ctx, xml)?),
        };
        self.emit(&text);
        Ok(())
    }

    fn show_configuration(&mut self, path: &[&str]) -> Result<(), String> {
        let store = self.config_store();
        let reply = self.private_or_shared("show configuration", |s| {
            s.client.get_config(store, None).map_err(err("show configuration"))
        })?;
        let xml = data::reply_data(&reply, &self.ctx);
        let tree = data::parse_xml(&self.ctx, &xml)?;
        let prefix = if path.is_empty() {
            "set ".to_string()
        } else {
            let words: Vec<String> = path.iter().map(|s| s.to_string()).collect();
            let walk = config_path::walk(&self.ctx, &words, true)?;
            format!("set {} ", config_path::words_of(&walk.steps))
        };
        let lines = crate::set_form::lines(&tree);
        self.print_data(&xml, |_| {
            lines
                .iter()
                .filter(|l| format!("{l} ").starts_with(&prefix))
                .map(|l| format!("{l}\n"))
                .collect()
        })
    }

    fn clear_counters(&mut self, port: Option<&str>) -> Result<(), String> {
        let ports = match port {
            Some(p) => vec![p.to_string()],
            None => self.ports(),
        };
        for p in &ports {
            self.client
                .rpc(&pfc_action(p, "clear-pfc-counters"))
                .and_then(|r| r.into_result())
                .map_err(err("clear counters"))?;
        }
        self.say(&format!("counters cleared on {}", port.unwrap_or("every port")));
        Ok(())
    }

    fn measure(&mut self, port: &str) -> Result<(), String> {
        self.client
            .rpc(&pfc_action(port, "measure-headroom"))
            .and_then(|r| r.into_result())
            .map_err(err("request headroom measure"))?;
        self.say(&format!("headroom measurement started on {port}: see `show headroom {port}`"));
        Ok(())
    }
}

/// The YANG 1.1 `<action>` (RFC 7950 7.15.2) running `action` of `port`'s `pfc` container.
fn pfc_action(port: &str, action: &str) -> String {
    format!(
        "<action xmlns=\"urn:ietf:params:xml:ns:yang:1\"><interfaces xmlns=\"{}\"><interface>\
         <name>{}</name><bridge-port xmlns=\"{}\"><pfc xmlns=\"{}\"><{action}/></pfc>\
         </bridge-port></interface></interfaces></action>",
        filters::IF_NS,
        quick_xml::escape::escape(port),
        filters::DOT1Q_NS,
        filters::PFCB_NS
    )
}

const WITH_DEFAULTS_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults";

fn one_port<'a>(words: &[&'a str]) -> Result<Option<&'a str>, String> {
    match words {
        [] => Ok(None),
        [p] => Ok(Some(p)),
        _ => Err(format!("one port at most, not `{}`", words.join(" "))),
    }
}

/// Key values of existing entries of the list at the end of `steps` (its `index`th key,
/// the entries narrowed by the keys already given), from a configuration in JSON.
pub fn existing_keys(config: &Value, steps: &[Step<'_>], index: usize) -> Vec<String> {
    let Some((last, parents)) = steps.split_last() else { return Vec::new() };
    let mut here = config;
    for s in parents {
        let Some(next) = data::member(here, s.node.name()) else { return Vec::new() };
        here = match next {
            Value::Array(entries) => {
                let keys: Vec<String> = s.node.list_keys().map(|k| k.name().to_string()).collect();
                match entries.iter().find(|e| {
                    keys.iter().zip(&s.keys).all(|(k, v)| data::text(e, k).as_deref() == Some(v))
                }) {
                    Some(e) => e,
                    None => return Vec::new(),
                }
            }
            other => other,
        };
    }
    let keys: Vec<String> = last.node.list_keys().map(|k| k.name().to_string()).collect();
    let Some(key) = keys.get(index) else { return Vec::new() };
    data::list(here, last.node.name())
        .iter()
        .filter(|e| {
            keys.iter().zip(&last.keys).all(|(k, v)| data::text(e, k).as_deref() == Some(v))
        })
        .filter_map(|e| {
            data::at(e, key).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
        })
        .collect()
}
