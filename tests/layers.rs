//! The library's layers run one way: every `crate::` path in `src/` (outside the program
//! in `src/bin/`) names a module listed above its own in docs/ARCHITECTURE.md, where the
//! order is written once. Items re-exported at the crate root count as the module they
//! come from (read from `src/lib.rs`). Inside each folder, the files use one another one
//! way too: no import circle between the files of any folder of `src/`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

/// The layer order: the first word of each line of the ```layers block, lowest first.
fn layers(architecture: &str) -> Vec<String> {
    let block = architecture
        .split("```layers\n")
        .nth(1)
        .expect("docs/ARCHITECTURE.md has a ```layers block")
        .split("```")
        .next()
        .unwrap();
    block
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// Root re-exports (`pub use module::{A, B};` in lib.rs): item name → its module.
fn root_items(lib: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for stmt in code(lib).split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = rest.split("::").next().unwrap().trim().to_string();
        for name in names_after(rest, &module) {
            out.insert(name, module.clone());
        }
    }
    out
}

/// The last path segment of every item of `use module::…` (braces included).
fn names_after(path: &str, module: &str) -> Vec<String> {
    let tail = &path[module.len()..];
    tail.split([',', '{', '}'])
        .filter_map(|p| p.rsplit("::").next())
        .map(|p| p.split(" as ").last().unwrap().trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Source text without comments (line comments and doc comments).
fn code(src: &str) -> String {
    src.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of every `crate::` path in `src`: `crate::a::b` gives `a`,
/// `crate::{a::b, c}` gives `a` and `c`.
fn crate_paths(src: &str) -> Vec<String> {
    let src = code(src);
    let mut out = Vec::new();
    let mut rest = src.as_str();
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::` or a longer identifier
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(first_segment(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 || c != '{' {
                    item.push(c);
                }
            }
            out.push(first_segment(&item));
        } else {
            out.push(first_segment(rest));
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn first_segment(path: &str) -> String {
    path.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The upward edges of the library at `root`: "file: module → target" for every path
/// to a module at or above nothing it may use.
fn upward_edges(root: &Path, order: &[String]) -> Vec<String> {
    let src = root.join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let items = root_items(&lib);
    let rank = |m: &str| order.iter().position(|o| o == m);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        if first == "bin" || first == "lib.rs" {
            continue;
        }
        let module = first.trim_end_matches(".rs").to_string();
        let Some(own) = rank(&module) else {
            bad.push(format!(
                "{}: module {module} is not in the layer list",
                rel.display()
            ));
            continue;
        };
        for target in crate_paths(&fs::read_to_string(&f).unwrap()) {
            let target = items.get(&target).cloned().unwrap_or(target);
            if target == module {
                continue;
            }
            match rank(&target) {
                Some(t) if t < own => {}
                Some(_) => bad.push(format!("{}: {module} → {target}", rel.display())),
                None => bad.push(format!(
                    "{}: {module} → {target}, which is not in the layer list",
                    rel.display()
                )),
            }
        }
    }
    bad.sort();
    bad.dedup();
    bad
}

fn order_of(root: &Path) -> Vec<String> {
    layers(&fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap())
}

#[test]
fn no_module_uses_a_module_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let order = order_of(root);
    assert!(order.len() >= 10, "{order:?}");
    let bad = upward_edges(root, &order);
    assert!(
        bad.is_empty(),
        "imports against the layer order:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_module_of_lib_rs_is_in_the_layer_list() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let order = order_of(root);
    let lib = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    for line in code(&lib).lines() {
        let line = line.trim();
        if let Some(m) = line
            .strip_prefix("pub mod ")
            .or_else(|| line.strip_prefix("mod "))
        {
            let m = m.trim_end_matches(';');
            assert!(
                order.iter().any(|o| o == m),
                "{m} is missing from the layers"
            );
        }
    }
}

#[test]
fn an_upward_use_is_caught() {
    // A copy of the library with one upward import added: `text` using `model`.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let order = order_of(root);
    let copy = tempfile::tempdir().unwrap();
    fs::create_dir_all(copy.path().join("src/text")).unwrap();
    fs::create_dir_all(copy.path().join("src/model")).unwrap();
    fs::write(
        copy.path().join("src/lib.rs"),
        "pub mod text;\npub mod model;\npub use error::{Error, Result};\n",
    )
    .unwrap();
    fs::write(
        copy.path().join("src/text/mod.rs"),
        "//! Uses crate::model in a comment only.\nuse crate::{Result, input::Document};\n",
    )
    .unwrap();
    fs::write(
        copy.path().join("src/model/mod.rs"),
        "use crate::text::Analyzer;\n",
    )
    .unwrap();
    assert!(upward_edges(copy.path(), &order).is_empty());
    fs::write(
        copy.path().join("src/text/hash.rs"),
        "use crate::{Error, model::{fnv1a, MAGIC}};\n",
    )
    .unwrap();
    assert_eq!(
        upward_edges(copy.path(), &order),
        ["text/hash.rs: text → model"]
    );
}

#[test]
fn paths_are_read_through_groups_and_comments() {
    let src = "use crate::{a::b, c::{d, e}, f};\n// crate::g\nlet x = crate::h::i(); $crate::j";
    assert_eq!(crate_paths(src), ["a", "c", "f", "h"]);
}

// No import circle between the files of one folder: within every folder of `src/` (the
// library's and the program's), the files that use one another do so one way, so each
// can be read, tested and replaced with only those below it in mind.

/// Source text without comments and without its unit-test module.
fn code_outside_tests(src: &str) -> String {
    code(match src.find("#[cfg(test)]\nmod tests") {
        Some(i) => &src[..i],
        None => src,
    })
}

/// Whether `text` holds `path` followed by a character that cannot continue a name.
fn names(text: &str, path: &str) -> bool {
    text.match_indices(path).any(|(i, _)| {
        let before = text[..i].chars().last();
        let after = text[i + path.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Whether `text` names sibling `o` inside a `head::{…}` group (top level of the group).
fn in_group(text: &str, head: &str, o: &str) -> bool {
    let open = format!("{head}::{{");
    text.match_indices(&open).any(|(i, _)| {
        let mut depth = 0;
        let mut item = String::new();
        for c in text[i + open.len()..].chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => return false,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    if first_segment(&item) == o {
                        return true;
                    }
                    item.clear();
                    continue;
                }
                _ => {}
            }
            item.push(c);
        }
        first_segment(&item) == o
    })
}

/// One sibling of a folder: the text of its own file (where `super::` is the folder) and
/// the text of the files inside it (where only full paths name the folder's siblings).
struct Sibling {
    own: String,
    nested: String,
}

/// The edges between the siblings of a folder whose module path is `prefix`
/// (`crate::learn`, or `crate` for the top of the program).
fn edges(siblings: &BTreeMap<String, Sibling>, prefix: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut g = BTreeMap::new();
    for (m, s) in siblings {
        let mut to = BTreeSet::new();
        for o in siblings.keys().filter(|o| *o != m) {
            let full = format!("{prefix}::{o}");
            let own = names(&s.own, &format!("super::{o}")) || in_group(&s.own, "super", o);
            let any = [&s.own, &s.nested]
                .iter()
                .any(|t| names(t, &full) || in_group(t, prefix, o));
            if own || any {
                to.insert(o.clone());
            }
        }
        g.insert(m.clone(), to);
    }
    g
}

/// The circles of `g`: each strongly connected set of more than one file.
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(v) = todo.pop() {
            for w in &g[&v] {
                if seen.insert(w.clone()) {
                    todo.push(w.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<_, _> = g.keys().map(|v| (v.clone(), reach(v))).collect();
    let mut out: BTreeSet<Vec<String>> = BTreeSet::new();
    for v in g.keys() {
        let comp: Vec<String> = g
            .keys()
            .filter(|w| *w == v || (reached[v].contains(*w) && reached[*w].contains(v)))
            .cloned()
            .collect();
        if comp.len() > 1 {
            out.insert(comp);
        }
    }
    out.into_iter().collect()
}

/// All `.rs` text under `dir`.
fn all_text(dir: &Path) -> String {
    let mut out = String::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out += &all_text(&p);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out += &code_outside_tests(&fs::read_to_string(&p).unwrap());
        }
    }
    out
}

/// Every folder's circles, as "folder: a ↔ b ↔ …", walking from `dir` (module `prefix`).
fn folder_circles(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let mut siblings = BTreeMap::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            let own = p.join("mod.rs");
            let entry = siblings.entry(name.clone()).or_insert(Sibling {
                own: String::new(),
                nested: String::new(),
            });
            if own.exists() {
                entry.own = code_outside_tests(&fs::read_to_string(&own).unwrap());
            }
            entry.nested = all_text(&p);
            folder_circles(&p, &format!("{prefix}::{name}"), out);
        } else if p.extension().is_some_and(|x| x == "rs")
            && !["mod", "lib", "main"].contains(&name.as_str())
        {
            let entry = siblings.entry(name).or_insert(Sibling {
                own: String::new(),
                nested: String::new(),
            });
            entry.own = code_outside_tests(&fs::read_to_string(&p).unwrap());
        }
    }
    for c in circles(&edges(&siblings, prefix)) {
        out.push(format!("{}: {}", dir.display(), c.join(" ↔ ")));
    }
}

#[test]
fn no_folder_has_an_import_circle_between_its_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for e in fs::read_dir(&root).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if p.is_dir() && name != "bin" {
            folder_circles(&p, &format!("crate::{name}"), &mut found);
        }
    }
    folder_circles(&root.join("bin/rosenblatt"), "crate", &mut found);
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn a_circle_is_caught_and_a_one_way_use_is_not() {
    let sib = |own: &str, nested: &str| Sibling {
        own: own.into(),
        nested: nested.into(),
    };
    let mut s = BTreeMap::new();
    s.insert(
        "kind".to_string(),
        sib("use super::{mixing::Plan, Bias};", ""),
    );
    s.insert(
        "mixing".to_string(),
        sib("", "use crate::learn::kind::Kind;"),
    );
    s.insert("step".to_string(), sib("use super::kind;", ""));
    let found = circles(&edges(&s, "crate::learn"));
    assert_eq!(found, vec![vec!["kind".to_string(), "mixing".to_string()]]);
    // `super::` in a file nested below a sibling names that sibling's folder, not ours.
    s.insert("mixing".to_string(), sib("", "use super::kind::Kind;"));
    assert!(circles(&edges(&s, "crate::learn")).is_empty());
    // A longer name is not the sibling's.
    s.insert("mixing".to_string(), sib("use super::kinds;", ""));
    assert!(circles(&edges(&s, "crate::learn")).is_empty());
}
