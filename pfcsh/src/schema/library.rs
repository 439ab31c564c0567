//! ietf-yang-library (RFC 8525): the modules in the server's module set, with their
//! revisions and enabled features, implemented or imported only. A module's name and revision
//! name its file in the cache and go into `<get-schema>`, so a server's list is refused unless
//! each is what YANG allows (an identifier, a YYYY-MM-DD date): `../../x` names no module.

use quick_xml::events::Event;
use quick_xml::Reader;

/// A `<get>` filter for the module set.
pub const YANG_LIBRARY_FILTER: &str =
    "<yang-library xmlns=\"urn:ietf:params:xml:ns:yang:ietf-yang-library\"><module-set/></yang-library>";

/// One module of the server's module set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LibraryModule {
    pub name: String,
    pub revision: Option<String>,
    /// Its namespace, as the yang-library gives it.
    pub namespace: Option<String>,
    pub features: Vec<String>,
    /// False for an `import-only-module`.
    pub implemented: bool,
}

impl LibraryModule {
    /// `name@revision`, or `name` without a revision: the cache file's stem.
    pub fn file_stem(&self) -> String {
        match &self.revision {
            Some(r) => format!("{}@{r}", self.name),
            None => self.name.clone(),
        }
    }
}

/// The modules listed in `<get>`'s data for [`YANG_LIBRARY_FILTER`]. Prefixes are ignored:
/// the element names of ietf-yang-library are unique enough at this depth.
pub fn parse_library(xml: &str) -> Result<Vec<LibraryModule>, String> {
    let mut reader = Reader::from_str(xml);
    let mut modules = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut current: Option<LibraryModule> = None;
    loop {
        let event = reader.read_event().map_err(|e| format!("yang-library reply: {e}"))?;
        match event {
            Event::Start(s) => {
                let name = s.local_name().as_ref().to_string();
                if path.last().map(String::as_str) == Some("module-set")
                    && (name == "module" || name == "import-only-module")
                {
                    current =
                        Some(LibraryModule { implemented: name == "module", ..Default::default() });
                }
                path.push(name);
            }
            Event::End(_) => {
                let name = path.pop().unwrap_or_default();
                if (name == "module" || name == "import-only-module")
                    && path.last().map(String::as_str) == Some("module-set")
                {
                    if let Some(m) = current.take().filter(|m| !m.name.is_empty()) {
                        check_names(&m)?;
                        modules.push(m);
                    }
                }
            }
            Event::Text(t) => {
                let text = t.xml10_content().trim().to_string();
                let depth = path.len();
                if let (Some(m), true) = (current.as_mut(), depth >= 2) {
                    let parent = &path[depth - 2];
                    if parent == "module" || parent == "import-only-module" {
                        match path[depth - 1].as_str() {
                            "name" => m.name = text,
                            "revision" if !text.is_empty() => m.revision = Some(text),
                            "namespace" if !text.is_empty() => m.namespace = Some(text),
                            "feature" => m.features.push(text),
                            _ => {}
                        }
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(modules)
}

/// Refuses a module whose name is not a YANG identifier (RFC 7950 6.2) or whose revision is
/// not a date (`YYYY-MM-DD`, 7.1.9).
fn check_names(m: &LibraryModule) -> Result<(), String> {
    if !is_identifier(&m.name) {
        return Err(format!(
            "the server's yang-library names a module {:?}, which is not a YANG identifier: \
             refusing to fetch or cache it",
            m.name
        ));
    }
    if let Some(r) = m.revision.as_deref().filter(|r| !is_revision(r)) {
        return Err(format!(
            "the server's yang-library gives module {} the revision {:?}, which is not a date \
             (YYYY-MM-DD): refusing to fetch or cache it",
            m.name, r
        ));
    }
    Ok(())
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn is_revision(r: &str) -> bool {
    let b = r.as_bytes();
    b.len() == 10
        && b.iter()
            .enumerate()
            .all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implemented_and_import_only_modules_with_features() {
        let xml = r#"<yang-library xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-library"><module-set><name>complete</name>
<module><name>ietf-interfaces</name><revision>2018-02-20</revision><namespace>urn:x</namespace><feature>if-mib</feature><submodule><name>sub</name><revision>2000-01-01</revision></submodule></module>
<import-only-module><name>ietf-yang-types</name><revision>2013-07-15</revision><namespace>urn:y</namespace></import-only-module>
</module-set></yang-library>"#;
        let m = parse_library(xml).expect("parses");
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].name, "ietf-interfaces");
        assert_eq!(m[0].revision.as_deref(), Some("2018-02-20"));
        assert_eq!(m[0].features, ["if-mib"]);
        assert!(m[0].implemented);
        assert_eq!(m[1].file_stem(), "ietf-yang-types@2013-07-15");
        assert!(!m[1].implemented);
    }

    /// Names and revisions that would name files outside the cache (or odd ones in it) are
    /// refused before anything is fetched or written.
    #[test]
    fn a_module_name_or_revision_that_is_no_yang_name_is_refused() {
        let library = |module: &str| {
            format!(
                "<yang-library xmlns=\"urn:ietf:params:xml:ns:yang:ietf-yang-library\"><module-set>\
                 <name>s</name><module><name>good</name><revision>2020-01-01</revision></module>\
                 {module}</module-set></yang-library>"
            )
        };
        for (module, says) in [
            ("<module><name>../../x</name></module>", "not a YANG identifier"),
            ("<module><name>/etc/passwd</name></module>", "not a YANG identifier"),
            ("<module><name>m</name><revision>../../../x</revision></module>", "not a date"),
            ("<import-only-module><name>a/b</name></import-only-module>", "not a YANG identifier"),
        ] {
            let err = parse_library(&library(module)).expect_err(module);
            assert!(err.contains(says), "{module}: {err}");
        }
        let ok = parse_library(&library("<module><name>m_2.x-y</name></module>")).expect("ok");
        assert_eq!(ok.len(), 2);
    }
}
