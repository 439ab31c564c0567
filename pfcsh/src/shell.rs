//! One command line at a time, in operational or configuration mode, on one NETCONF
//! session ([`Session::execute`]). Every failure is returned as the one line to print; the
//! candidate is never touched by a failed command (the server keeps it as it was).

use netconf_client::Datastore;
use serde_json::Value;

use crate::config_path::{self, Step};
use crate::data;
use crate::rpc_error::sentence;
use crate::session::{Flow, Format, Mode, Session};
use crate::show::{self, filters};
use crate::words::split;

fn err(what: &str) -> impl Fn(netconf_client::Error) -> String + '_ {
    move |e| sentence(what, &e)
}

impl Session {
    /// Runs one command line.
    pub fn execute(&mut self, line: &str) -> Result<Flow, String> {
        self.config_cache = None;
        let words: Vec<String> = split(line).into_iter().map(|w| w.text).collect();
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        let config = self.mode == Mode::Configuration;
        match w.as_slice() {
            [] => {}
            ["exit" | "quit"] if config => self.mode = Mode::Operational,
            ["exit" | "quit"] => return Ok(Flow::Quit),
            ["help"] => println!("{}", crate::cli::SYNTAX),
            ["configure"] if !config => {
                self.mode = Mode::Configuration;
                println!("Entering configuration mode (the candidate); `exit` leaves it.");
            }
            ["configure"] => {}
            ["show", "|", "compare"] | ["compare"] if config => self.compare()?,
            ["show", "configuration", path @ ..] => self.show_configuration(path)?,
            ["show", "interfaces", "pfc", port @ ..] => {
                let port = one_port(port)?;
                self.show(&filters::interfaces_pfc(port), |v| show::pfc::render(v, port))?
            }
            ["show", "headroom", port @ ..] => {
                let port = one_port(port)?;
                self.show(&filters::headroom(port), |v| show::headroom::render(v, port))?
            }
            ["show", "dcbx", port @ ..] => {
                let port = one_port(port)?;
                self.show(&filters::dcbx(port), |v| show::dcbx::render(v, port))?
            }
            ["show", "lldp", "neighbors" | "neighbours", rest @ ..] => {
                let detail = rest.last() == Some(&"detail");
                let port = one_port(if detail { &rest[..rest.len() - 1] } else { rest })?;
                self.show(&filters::lldp_neighbors(port), |v| show::lldp::render(v, detail))?
            }
            ["show", "pipeline"] => self.show(&filters::pipeline(), show::pipeline::render)?,
            ["show", "counters", port @ ..] => {
                let port = one_port(port)?;
                self.show(&filters::counters(port), show::counters::render)?
            }
            ["clear", "counters", port @ ..] => self.clear_counters(one_port(port)?)?,
            ["request", "headroom", "measure", port] => self.measure(port)?,
            ["monitor"] => crate::monitor::run(self)?,
            ["set", path @ ..] if config => self.set(path)?,
            ["delete", path @ ..] if config => self.delete(path)?,
            ["commit"] if config => {
                self.client.commit().map_err(|e| refused("commit", &e))?;
                println!("commit complete");
            }
            ["commit", "check"] if config => {
                self.client
                    .rpc("<validate><source><candidate/></source></validate>")
                    .and_then(|r| r.into_result())
                    .map_err(|e| refused("commit check", &e))?;
                println!("configuration check succeeds");
            }
            ["commit", "confirmed", secs] if config => self.commit_confirmed(secs)?,
            ["rollback" | "discard"] if config => {
                self.client.discard_changes().map_err(err("discard"))?;
                println!("candidate reverted to running");
            }
            ["set" | "delete" | "commit" | "rollback" | "discard", ..] => {
                return Err(format!(
                    "`{}` works in configuration mode: type `configure` first",
                    w[0]
                ))
            }
            _ => return Err(format!("unknown command `{}`: press ? or type help", line.trim())),
        }
        Ok(Flow::Continue)
    }

    /// Fetches `filter` with `<get>` and prints it as the format asks.
    fn show(&mut self, filter: &str, render: impl Fn(&Value) -> String) -> Result<(), String> {
        let reply = self.client.get(Some(filter)).map_err(err("show"))?;
        let xml = data::reply_data(&reply, &self.ctx);
        self.print_data(&xml, render)
    }

    fn print_data(&self, xml: &str, render: impl Fn(&Value) -> String) -> Result<(), String> {
        let text = match self.format {
            Format::Xml => format!("{}\n", xml.trim()),
            Format::Json => data::xml_to_json(&self.ctx, xml)?,
            Format::Table => render(&data::xml_to_value(&self.ctx, xml)?),
        };
        crate::visible::print(&text);
        Ok(())
    }

    fn show_configuration(&mut self, path: &[&str]) -> Result<(), String> {
        let store = self.config_store();
        let reply = self.client.get_config(store, None).map_err(err("show configuration"))?;
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

    fn config_lines(&mut self, store: Datastore) -> Result<Vec<String>, String> {
        let reply = self.client.get_config(store, None).map_err(err("get-config"))?;
        let tree = data::parse_xml(&self.ctx, &data::reply_data(&reply, &self.ctx))?;
        Ok(crate::set_form::lines(&tree))
    }

    fn compare(&mut self) -> Result<(), String> {
        let running = self.config_lines(Datastore::Running)?;
        let candidate = self.config_lines(Datastore::Candidate)?;
        let diff = crate::diff::compare(&running, &candidate);
        if diff.is_empty() {
            println!("no changes: the candidate equals running");
        }
        for l in diff {
            crate::visible::println(&l);
        }
        Ok(())
    }

    fn walk_words<'a>(&'a self, path: &[&str]) -> Result<config_path::Walk<'a>, String> {
        let words: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        config_path::walk(&self.ctx, &words, true)
    }

    fn set(&mut self, path: &[&str]) -> Result<(), String> {
        let xml = {
            let walk = self.walk_words(path)?;
            config_path::set_xml(&self.ctx, &walk)?
        };
        self.client.edit_config(Datastore::Candidate, &xml, None).map_err(err("set"))
    }

    fn delete(&mut self, path: &[&str]) -> Result<(), String> {
        let xml = {
            let walk = self.walk_words(path)?;
            config_path::delete_xml(&walk)?
        };
        self.client.edit_config(Datastore::Candidate, &xml, None).map_err(err("delete"))
    }

    fn commit_confirmed(&mut self, secs: &str) -> Result<(), String> {
        let n: u32 = secs.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
            format!("commit confirmed takes whole seconds (at least 1), not `{secs}`")
        })?;
        self.client
            .rpc(&format!("<commit><confirmed/><confirm-timeout>{n}</confirm-timeout></commit>"))
            .and_then(|r| r.into_result())
            .map_err(|e| refused("commit confirmed", &e))?;
        println!("commit complete; rolled back in {n} s unless confirmed by `commit`");
        Ok(())
    }

    fn clear_counters(&mut self, port: Option<&str>) -> Result<(), String> {
        let inner = port
            .map(|p| format!("<interface>{}</interface>", quick_xml::escape::escape(p)))
            .unwrap_or_default();
        self.client
            .rpc(&format!(
                "<clear-pfc-counters xmlns=\"{}\">{inner}</clear-pfc-counters>",
                filters::PFCB_NS
            ))
            .and_then(|r| r.into_result())
            .map_err(err("clear counters"))?;
        println!("counters cleared on {}", port.unwrap_or("every port"));
        Ok(())
    }

    fn measure(&mut self, port: &str) -> Result<(), String> {
        self.client
            .rpc(&format!(
                "<measure-headroom xmlns=\"{}\"><interface>{}</interface></measure-headroom>",
                filters::PFCB_NS,
                quick_xml::escape::escape(port)
            ))
            .and_then(|r| r.into_result())
            .map_err(err("request headroom measure"))?;
        println!("headroom measurement started on {port}: see `show headroom {port}`");
        Ok(())
    }
}

/// A refused commit as one line, saying the candidate is kept.
fn refused(what: &str, e: &netconf_client::Error) -> String {
    format!(
        "{}; the candidate keeps your changes (fix them with set/delete, or discard)",
        sentence(what, e)
    )
}

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
