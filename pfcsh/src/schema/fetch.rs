//! Module texts from the server (`<get-schema>`, RFC 6022), kept under
//! `~/.cache/pfcsh/yang/NAME@REVISION.yang`. A module with a revision never changes under the
//! same name@revision, so a cached file is used as it is; one without a revision is fetched
//! again on every start (it may have changed).

use std::path::Path;

use mgmt::client::Client;

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
        if m.revision.is_some() && file.is_file() {
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
    let raw = reply.data().unwrap_or_default();
    let text = match raw.trim().strip_prefix("<![CDATA[").and_then(|r| r.strip_suffix("]]>")) {
        Some(inner) => inner.to_string(),
        None => quick_xml::escape::unescape(raw)
            .map_err(|e| format!("module {}: {e}", m.name))?
            .into_owned(),
    };
    Ok(text)
}
