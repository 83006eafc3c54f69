//! No import circle between the files of one folder: within every folder of `src/` (the
//! library's and the program's), the files that use one another do so one way, so each
//! can be read, tested and replaced with only those below it in mind. The layer test
//! (tests/layers.rs) holds the modules of the library to their order; this one holds the
//! files inside each module.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Source text without comments and without its unit-test module.
fn code(src: &str) -> String {
    let src = match src.find("#[cfg(test)]\nmod tests") {
        Some(i) => &src[..i],
        None => src,
    };
    src.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
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

fn first_segment(s: &str) -> String {
    s.trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
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
            out += &code(&fs::read_to_string(&p).unwrap());
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
                entry.own = code(&fs::read_to_string(&own).unwrap());
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
            entry.own = code(&fs::read_to_string(&p).unwrap());
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
