//! No circle of files in any crate of the workspace: within a crate, the files' imports run one
//! way, so that each file can be read knowing only the files below it.
//!
//! Read from the source text: a file's module path comes from where it lies (`a/mod.rs` and
//! `a.rs` are `a`, `a/b.rs` is `a::b`), and a file uses another when it names a path into it
//! (`crate::…`, `super::…`, `self::…`, in a `use` or in code). A name a module only re-exports
//! (`pub use b::Name` in `a`) is followed to the file that defines it, as a reader would. Test
//! modules (`#[cfg(test)]` to the end of a file) are left out: they may look anywhere.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One file of a crate.
struct File {
    path: PathBuf,
    module: Vec<String>,
    /// Its code, comments, strings and test module left out.
    code: String,
}

/// The workspace's crate roots: each package's `src/` (the library and `src/main.rs`), and
/// each program under `src/bin/` apart.
fn crates(root: &Path) -> Vec<(String, Vec<File>)> {
    let mut found = Vec::new();
    let packages = ["."]
        .into_iter()
        .map(PathBuf::from)
        .chain(["dataplane", "lldp", "mgmt", "pfcsh", "bridge", "logging"].map(PathBuf::from))
        .chain(
            dirs(&root.join("tools"))
                .into_iter()
                .map(|d| d.strip_prefix(root).unwrap_or(&d).to_path_buf()),
        )
        .chain(
            dirs(root)
                .into_iter()
                .filter(|d| d.join("Cargo.toml").exists() && d.join("src").exists())
                .map(|d| d.strip_prefix(root).unwrap_or(&d).to_path_buf()),
        )
        .collect::<BTreeSet<_>>();
    for package in packages {
        let src = root.join(&package).join("src");
        if !src.is_dir() || package.starts_with("vendor") || package.starts_with("target") {
            continue;
        }
        let name = package.display().to_string();
        let mut library = Vec::new();
        for path in rust_files(&src) {
            let relative = path.strip_prefix(&src).unwrap_or(&path).to_path_buf();
            if relative.starts_with("bin") || relative == Path::new("main.rs") {
                continue;
            }
            library.push(file(&path, module_of(&relative)));
        }
        found.push((format!("{name} (library)"), library));
        if src.join("main.rs").exists() {
            found.push((format!("{name} (main)"), vec![file(&src.join("main.rs"), Vec::new())]));
        }
        for program in dirs(&src.join("bin")) {
            let files = rust_files(&program)
                .into_iter()
                .map(|p| {
                    let relative = p.strip_prefix(&program).unwrap_or(&p).to_path_buf();
                    file(&p, module_of(&relative))
                })
                .collect();
            found.push((format!("{}", program.display()), files));
        }
    }
    found
}

fn dirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<_> =
        entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect();
    out.sort();
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `a/b.rs` → [a, b]; `a/mod.rs` → [a]; `lib.rs`, `main.rs` → [].
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> =
        relative.iter().map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib" || l == "main") {
        parts.pop();
    }
    parts
}

fn file(path: &Path, module: Vec<String>) -> File {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    File { path: path.to_path_buf(), module, code: code_of(&text) }
}

/// The text without comments, string and character literals, and the test module.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if !escaped && c == '"' {
                        break;
                    }
                    escaped = !escaped && c == '\\';
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every path a file names that starts at `crate`, `super` or `self`, as written (use trees
/// expanded).
fn paths_named(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    // `use` trees, braces expanded.
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        rest = &rest[i + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = rest.find(';') else { break };
        expand(&rest[..end].replace(char::is_whitespace, ""), &mut Vec::new(), &mut paths);
    }
    // Paths in code.
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut at = 0;
        while let Some(i) = code[at..].find(start) {
            let i = at + i;
            at = i + start.len();
            if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
                continue;
            }
            let path: String = code[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push(path.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect());
        }
    }
    paths.retain(|p: &Vec<String>| {
        p.first().is_some_and(|f| f == "crate" || f == "super" || f == "self")
    });
    paths
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim_start_matches("::");
    match tree.find('{') {
        None => {
            let mut path = prefix.clone();
            let plain = tree.split(" as ").next().unwrap_or(tree);
            path.extend(plain.split("::").filter(|s| !s.is_empty()).map(str::to_string));
            out.push(path);
        }
        Some(open) => {
            let head: Vec<String> =
                tree[..open].split("::").filter(|s| !s.is_empty()).map(str::to_string).collect();
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let n = prefix.len();
            prefix.extend(head);
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&inner[start..i], prefix, out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            if start < inner.len() {
                expand(&inner[start..], prefix, out);
            }
            prefix.truncate(n);
        }
    }
}

/// `path` as named in module `from`, made absolute (from the crate root).
fn absolute(from: &[String], path: &[String]) -> Vec<String> {
    let mut base = from.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        _ => {}
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    base
}

/// The items a file defines, and what it re-exports (`pub use`): name → absolute path.
type Items = (BTreeSet<String>, HashMap<String, Vec<String>>);

fn items(f: &File) -> Items {
    let mut defined = BTreeSet::new();
    let words: Vec<&str> = f.code.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
    for w in words.windows(2) {
        if ["struct", "enum", "fn", "trait", "type", "const", "static", "mod", "union"]
            .contains(&w[0])
        {
            defined.insert(w[1].to_string());
        }
    }
    let mut reexports = HashMap::new();
    let mut rest = f.code.as_str();
    while let Some(i) = rest.find("pub use ") {
        rest = &rest[i + 8..];
        let Some(end) = rest.find(';') else { break };
        let mut paths = Vec::new();
        expand(&rest[..end].replace(char::is_whitespace, ""), &mut Vec::new(), &mut paths);
        for p in paths {
            if let Some(name) = p.last() {
                // `pub use x as y`: the tree's plain part names x; y is rare enough to ignore.
                reexports.insert(name.clone(), absolute(&f.module, &p));
            }
        }
    }
    (defined, reexports)
}

/// The file a path leads to: the longest module prefix that is a file, then through
/// re-exports to the file that defines the name.
fn target(
    path: &[String],
    modules: &BTreeMap<Vec<String>, usize>,
    items: &[Items],
    depth: usize,
) -> Option<usize> {
    let (len, &file) =
        (0..=path.len()).rev().find_map(|n| modules.get(&path[..n]).map(|f| (n, f)))?;
    let Some(name) = path.get(len) else { return Some(file) };
    let (defined, reexports) = &items[file];
    if defined.contains(name) || depth > 8 {
        return Some(file);
    }
    match reexports.get(name) {
        Some(to) if to.as_slice() != path => {
            let mut next = to.clone();
            next.extend(path[len + 1..].iter().cloned());
            target(&next, modules, items, depth + 1).or(Some(file))
        }
        _ => Some(file),
    }
}

/// Each circle of files of one crate, as the files' paths.
fn circles(files: &[File]) -> Vec<Vec<PathBuf>> {
    let modules: BTreeMap<Vec<String>, usize> =
        files.iter().enumerate().map(|(i, f)| (f.module.clone(), i)).collect();
    let items: Vec<_> = files.iter().map(items).collect();
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); files.len()];
    for (i, f) in files.iter().enumerate() {
        for path in paths_named(&f.code) {
            let abs = absolute(&f.module, &path);
            if let Some(t) = target(&abs, &modules, &items, 0) {
                // A module's own children and its parent's re-exports of them are the module
                // tree, not an import: `mod a; pub use a::X;` in a parent is an edge down only.
                if t != i {
                    edges[i].insert(t);
                }
            }
        }
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| c.into_iter().map(|i| files[i].path.clone()).collect())
        .collect()
}

/// Tarjan's strongly connected components.
fn strongly_connected(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn the_checker_sees_a_circle_when_there_is_one() {
    let f = |path: &str, module: &[&str], code: &str| File {
        path: PathBuf::from(path),
        module: module.iter().map(|s| s.to_string()).collect(),
        code: code_of(code),
    };
    let circle = [
        f("lib.rs", &[], "mod a; mod b; pub use a::Thing;"),
        f("a.rs", &["a"], "use super::b::{Other, more::{X}}; pub struct Thing;"),
        f("b.rs", &["b"], "pub struct Other; fn f() -> crate::Thing { todo!() }"),
    ];
    assert_eq!(circles(&circle).len(), 1, "a → b → a through the root's re-export");
    let line = [
        f("lib.rs", &[], "mod a; mod b; pub use a::Thing; // use b::Other;"),
        f("a.rs", &["a"], "use super::b::Other; pub struct Thing; /* crate::Thing */"),
        f("b.rs", &["b"], "pub struct Other; const S: &str = \"crate::a::Thing\";"),
    ];
    assert!(circles(&line).is_empty(), "comments and strings are not imports");
}

#[test]
fn no_crate_has_a_circle_of_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for (name, files) in crates(root) {
        for c in circles(&files) {
            let shown: Vec<_> =
                c.iter().map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string()).collect();
            found.push(format!("{name}: {}", shown.join(" ⇄ ")));
        }
    }
    assert!(found.is_empty(), "circles of files:\n{}", found.join("\n"));
}
