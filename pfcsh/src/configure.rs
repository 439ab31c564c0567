//! Configuration mode's commands on the session: `set` and `delete` (on the shared candidate,
//! or kept for a private one), `show | compare`, the commits, and leaving with a warning when
//! changes are not committed.

use netconf_client::Datastore;

use crate::config_path;
use crate::data;
use crate::rpc_error::sentence;
use crate::rpc_error::{err, no_such_port, refused};
use crate::session::{Format, Kind, Mode, Session};

impl Session {
    /// Runs `f` on the candidate: the private one (under a lock) in private mode.
    pub(crate) fn private_or_shared<T>(
        &mut self,
        what: &str,
        f: impl FnOnce(&mut Session) -> Result<T, String>,
    ) -> Result<T, String> {
        if self.private_edits().is_some() {
            self.with_private(what, f)
        } else {
            f(self)
        }
    }

    pub(crate) fn commit(&mut self) -> Result<(), String> {
        self.private_or_shared("commit", |s| s.client.commit().map_err(|e| refused("commit", &e)))?;
        if let Some(edits) = self.private_edits() {
            edits.clear();
        }
        self.dirty = false;
        if self.confirm.confirmed() {
            self.say("commit complete; the confirmed commit is confirmed (no rollback)");
        } else {
            self.say("commit complete");
        }
        Ok(())
    }

    /// `exit` in configuration mode: true when it left. With uncommitted changes of this
    /// session the first `exit` warns and stays (a script, which cannot answer, is warned on
    /// stderr and leaves).
    pub(crate) fn leave_configuration(&mut self) -> Result<bool, String> {
        if self.has_uncommitted_changes()? && !self.warned_exit {
            let (warning, left) = match self.kind {
                Kind::Shared => (UNCOMMITTED_WARNING, UNCOMMITTED_LEFT),
                Kind::Private(_) | Kind::Exclusive => (DROPPED_WARNING, DROPPED),
            };
            if self.interactive {
                self.warned_exit = true;
                crate::visible::eprintln(warning);
                return Ok(false);
            }
            crate::visible::eprintln(&format!("warning: {left}"));
        }
        self.warned_exit = false;
        self.leave_kind();
        self.mode = Mode::Operational;
        Ok(true)
    }

    /// `exit` in operational mode: the same warning when this session left changes in the
    /// candidate.
    pub(crate) fn quit_allowed(&mut self) -> Result<bool, String> {
        if self.interactive && !self.warned_exit && self.has_uncommitted_changes()? {
            self.warned_exit = true;
            crate::visible::eprintln(
                "the candidate keeps uncommitted changes you made: another operator's \
                 `commit` would apply them. `configure` then `commit` or `discard`; \
                 `exit` again leaves them there",
            );
            return Ok(false);
        }
        Ok(true)
    }

    /// Whether edits this session made are still in the candidate and not in running.
    pub(crate) fn has_uncommitted_changes(&mut self) -> Result<bool, String> {
        if let Some(edits) = self.private_edits() {
            return Ok(!edits.is_empty());
        }
        if !self.dirty {
            return Ok(false);
        }
        let running = self.config_lines(Datastore::Running)?;
        let candidate = self.config_lines(Datastore::Candidate)?;
        self.dirty = running != candidate;
        Ok(self.dirty)
    }

    pub(crate) fn config_lines(&mut self, store: Datastore) -> Result<Vec<String>, String> {
        let reply = self.client.get_config(store, None).map_err(err("get-config"))?;
        let tree = data::parse_xml(&self.ctx, &data::reply_data(&reply, &self.ctx))?;
        Ok(crate::set_form::lines(&tree))
    }

    pub(crate) fn compare(&mut self) -> Result<(), String> {
        let running = self.config_lines(Datastore::Running)?;
        let candidate =
            self.private_or_shared("show | compare", |s| s.config_lines(Datastore::Candidate))?;
        let diff = crate::diff::compare(&running, &candidate);
        if self.format == Format::Json {
            self.emit(&format!("{}\n", serde_json::json!({ "compare": diff })));
            return Ok(());
        }
        if diff.is_empty() {
            self.say("no changes: the candidate equals running");
        }
        for l in diff {
            self.emit(&format!("{l}\n"));
        }
        Ok(())
    }

    pub(crate) fn walk_words<'a>(&'a self, path: &[&str]) -> Result<config_path::Walk<'a>, String> {
        let words: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        config_path::walk(&self.ctx, &words, true)
    }

    pub(crate) fn set(&mut self, path: &[&str]) -> Result<(), String> {
        let xml = {
            let walk = self.walk_words(path)?;
            config_path::set_xml(&self.ctx, &walk)?
        };
        self.edit("set", path, &xml)
    }

    pub(crate) fn delete(&mut self, path: &[&str]) -> Result<(), String> {
        let xml = {
            let walk = self.walk_words(path)?;
            config_path::delete_xml(&walk)?
        };
        self.edit("delete", path, &xml)
    }

    /// Sends an edit to the candidate. A refusal below an interface pfcd does not have is
    /// said as such (the server's reason is a `when` condition on an entry it cannot have).
    pub(crate) fn edit(&mut self, verb: &str, path: &[&str], xml: &str) -> Result<(), String> {
        if let Some(edits) = self.private_edits() {
            edits.push(xml.to_string());
            if self.format == Format::Json {
                self.say(&format!("{verb}: the private candidate is changed"));
            }
            return Ok(());
        }
        match self.client.edit_config(Datastore::Candidate, xml, None) {
            Ok(()) => {
                self.dirty = true;
                // Silent at the prompt, as Junos is; `--json` prints one value per command.
                if self.format == Format::Json {
                    self.say(&format!("{verb}: the candidate is changed"));
                }
                Ok(())
            }
            Err(e) => {
                if let ["interfaces", "interface", port, _, ..] = path {
                    let ports = self.ports();
                    if !ports.is_empty() && !ports.iter().any(|p| p == port) {
                        return Err(format!("{verb} refused: {}", no_such_port(port, &ports)));
                    }
                }
                Err(sentence(verb, &e))
            }
        }
    }

    pub(crate) fn commit_confirmed(&mut self, timeout: std::time::Duration) -> Result<(), String> {
        let secs = timeout.as_secs();
        self.private_or_shared("commit confirmed", |s| {
            s.client
                .rpc(&format!(
                    "<commit><confirmed/><confirm-timeout>{secs}</confirm-timeout></commit>"
                ))
                .and_then(|r| r.into_result())
                .map_err(|e| refused("commit confirmed", &e))
        })?;
        if let Some(edits) = self.private_edits() {
            edits.clear();
        }
        self.dirty = false;
        self.confirm.confirmed();
        self.confirm.start(timeout);
        self.say(&format!(
            "commit complete; rolled back in {} unless confirmed by `commit`",
            crate::confirm::label(timeout)
        ));
        Ok(())
    }
}

/// What the first `exit` with uncommitted changes says.
const UNCOMMITTED_WARNING: &str = "the candidate has uncommitted changes: `commit` applies \
     them, `discard` throws them away, `exit` again leaves configuration mode and them in the \
     shared candidate (where another operator's `commit` would apply them)";

/// What the first `exit` with private or exclusive uncommitted changes says.
const DROPPED_WARNING: &str = "your changes are not committed: `commit` applies them, \
     `exit` again throws them away";

/// What a script is told when it leaves private or exclusive mode with uncommitted changes.
const DROPPED: &str = "left configuration mode: its uncommitted changes were thrown away";

/// What a script is told when it leaves configuration mode with uncommitted changes.
const UNCOMMITTED_LEFT: &str = "left configuration mode with uncommitted changes in the \
     shared candidate (another operator's `commit` would apply them)";
