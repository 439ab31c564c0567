//! Module texts from the server (`<get-schema>`, RFC 6022), kept under
//! `~/.cache/pfcsh/yang/NAME@REVISION.yang`. A module with a revision never changes under the
//! same name@revision, so a cached file is used as it is, unless it does not declare the
//! namespace the server's yang-library gives (a server whose module changed without a new
//! revision: pfcd's own modules moved to UUID URNs under the same one); one without a revision
//! is fetched again on every start (it may have changed).

use std::path::Path;

use netconf_client::Client;

use super::library::LibraryModule;

const MONITORING_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring";

/// Makes sure every module of `modules` that libyang does not carry itself has its text in
/// `dir`, fetching the missing ones. Returns how many were fetched.
pub fn ensure_cached(
    client: &mut Client,
    modules: &[LibraryModule],
    built_in: &dyn Fn(&LibraryModule) -> bool,
    dir: &Path,
) -> Result<usize, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut fetched = 0;
    for m in modules {
        if built_in(m) {
            continue;
        }
        let file = dir.join(format!("{}.yang", m.file_stem()));
        if m.revision.is_some() && cached_matches(&file, m.namespace.as_deref()) {
            continue;
        }
        let text = get_schema(client, m)?;
        // Write then rename: a start cut short never leaves half a module in the cache.
        let tmp = dir.join(format!(".{}.yang.{}", m.file_stem(), std::process::id()));
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &file))
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        fetched += 1;
    }
    Ok(fetched)
}

/// Whether `file` holds a module text declaring `namespace` (any text, without one to check).
fn cached_matches(file: &Path, namespace: Option<&str>) -> bool {
    let Ok(text) = std::fs::read_to_string(file) else { return false };
    !text.trim().is_empty() && namespace.is_none_or(|ns| text.contains(ns))
}

/// One module's YANG text.
fn get_schema(client: &mut Client, m: &LibraryModule) -> Result<String, String> {
    let version =
        m.revision.as_deref().map(|r| format!("<version>{r}</version>")).unwrap_or_default();
    let reply = client
        .rpc(&format!(
            "<get-schema xmlns=\"{MONITORING_NS}\"><identifier>{}</identifier>{version}\
             <format>yang</format></get-schema>",
            m.name
        ))
        .and_then(|r| r.into_result())
        .map_err(|e| format!("cannot fetch module {} from the server: {e}", m.file_stem()))?;
    let text = data_text(reply.raw())
        .map_err(|e| format!("module {}: the get-schema reply does not parse: {e}", m.name))?;
    if text.trim().is_empty() {
        return Err(format!("the server sent module {} empty", m.file_stem()));
    }
    Ok(text)
}

/// The text of the reply's `<data>` (in ietf-netconf-monitoring's namespace, so
/// [`netconf_client::Reply::data`], which looks for the base namespace's, does not see it).
fn data_text(raw: &str) -> Result<String, quick_xml::Error> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(raw);
    let mut depth = 0usize;
    let mut inside = false;
    let mut text = String::new();
    loop {
        match reader.read_event()? {
            Event::Start(s) => {
                depth += 1;
                if depth == 2 && s.local_name().as_ref() == "data" {
                    inside = true;
                }
            }
            Event::End(_) => {
                if depth == 2 && inside {
                    return Ok(text);
                }
                depth = depth.saturating_sub(1);
            }
            Event::Text(t) if inside => text.push_str(&t.xml10_content()),
            Event::CData(c) if inside => text.push_str(&c.xml10_content()),
            Event::GeneralRef(r) if inside => {
                let name = r.xml10_content();
                let resolved = if r.is_char_ref() {
                    r.resolve_char_ref().ok().flatten().map(String::from)
                } else {
                    quick_xml::escape::resolve_predefined_entity(&name).map(str::to_string)
                };
                text.push_str(&resolved.unwrap_or_default());
            }
            Event::Eof => return Ok(text),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cached_module_under_another_namespace_is_fetched_again() {
        let dir = std::env::temp_dir().join(format!("pfcsh-cache-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("pfcd-pfc@2026-11-29.yang");
        std::fs::write(&file, "module pfcd-pfc { namespace \"urn:pfcd:yang:pfcd-pfc\"; }")
            .expect("write");
        let now = "urn:uuid:f8a72bf3-f2f2-5965-8356-6d5b9285f984";
        assert!(!cached_matches(&file, Some(now)), "an older text of the same revision");
        assert!(cached_matches(&file, Some("urn:pfcd:yang:pfcd-pfc")));
        assert!(cached_matches(&file, None), "nothing to check it against");
        std::fs::write(&file, "").expect("write");
        assert!(!cached_matches(&file, None), "an empty file is no module");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn module_text_is_unescaped_from_data() {
        let raw = r#"<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="1"><data xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring">module m { description "a &lt;b&gt; &amp; c"; }</data></rpc-reply>"#;
        assert_eq!(data_text(raw).expect("parses"), r#"module m { description "a <b> & c"; }"#);
    }
}
