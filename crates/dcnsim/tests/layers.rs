//! The crate's modules keep the layer order `lib.rs` describes (issue 38): a module imports only
//! from its own layer and those below it, the two engines do not import each other, and
//! `lib.rs` lists the layers in the order written here.
//!
//! Read from the source, not the compiler: every `crate::<module>` a module's code names (its
//! comments and its tests left out: a doc link to a layer above, or a test that runs a whole
//! scenario, adds no dependency).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Whether the modules of a layer may import one another.
#[derive(Clone, Copy, PartialEq)]
enum Within {
    /// They may.
    Free,
    /// They may not: [`engine`] and `flowsim` stand side by side.
    Apart,
}

/// The layers, bottom up, as `lib.rs` lists them.
const LAYERS: &[(&[&str], Within)] = &[
    (
        &["units", "rng", "error", "validate", "tagged"],
        Within::Free,
    ),
    (&["topo"], Within::Free),
    (&["workload"], Within::Free),
    (&["net"], Within::Free),
    (&["lb"], Within::Free),
    (&["protocols"], Within::Free),
    (&["config"], Within::Free),
    (&["metrics"], Within::Free),
    (&["budget"], Within::Free),
    (&["run"], Within::Free),
    (&["engine", "flowsim"], Within::Apart),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(ms, _)| ms.contains(&module))
}

/// The files of top-level module `m` (`src/m.rs`, or `src/m/**`), without those only tests
/// compile (declared `#[cfg(test)] mod x;`).
fn files_of(m: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let single = src().join(format!("{m}.rs"));
    if single.exists() {
        files.push(single);
    }
    let dir = src().join(m);
    if dir.is_dir() {
        walk(&dir, &mut files);
    }
    let test_only: BTreeSet<PathBuf> = files.iter().flat_map(|f| test_modules(f)).collect();
    files.retain(|f| !test_only.iter().any(|t| f.starts_with(t)));
    files.sort();
    files
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source directory") {
        let p = entry.expect("readable entry").path();
        if p.is_dir() {
            walk(&p, files);
        } else if p.extension().is_some_and(|e| e == "rs") {
            files.push(p);
        }
    }
}

/// The paths (a file `x.rs` and a folder `x/`) of the modules `file` declares under
/// `#[cfg(test)]` without a body.
fn test_modules(file: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(file).expect("readable source file");
    let name = file.file_stem().unwrap().to_str().unwrap();
    let parent = file.parent().unwrap();
    // `m/mod.rs` declares into `m/`; `src/m.rs` and `m/x.rs` into `m/`, `m/x/`.
    let base = if name == "mod" {
        parent.to_path_buf()
    } else {
        parent.join(name)
    };
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for w in lines.windows(2) {
        if w[0] == "#[cfg(test)]" {
            let decl = w[1].strip_prefix("pub ").unwrap_or(w[1]);
            if let Some(m) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                out.push(base.join(format!("{m}.rs")));
                out.push(base.join(m));
            }
        }
    }
    out
}

/// `text` without comments and without `#[cfg(test)]` items that have a body (`mod tests {
/// … }`), counted by braces.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" && lines.peek().is_some_and(|l| l.contains('{')) {
            let mut depth = 0i64;
            for l in lines.by_ref() {
                depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
                if depth <= 0 {
                    break;
                }
            }
            continue;
        }
        let code = line.find("//").map_or(line, |i| &line[..i]);
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The top-level names `code` reaches through `crate::`: `crate::a::…` and
/// `crate::{a::…, b, …}`.
fn crate_names(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start) = (0, true);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        start = true;
                        continue;
                    }
                    c if c.is_whitespace() => continue,
                    _ => {}
                }
                if start && depth == 0 {
                    names.insert(ident(&group[j..]));
                    start = false;
                }
            }
        } else {
            names.insert(ident(rest));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// The modules `m`'s code imports (other than itself), each with a file that names it.
fn imports_of(m: &str) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for f in files_of(m) {
        let code = code_of(&std::fs::read_to_string(&f).unwrap());
        for n in crate_names(&code) {
            if n != m && layer_of(&n).is_some() && !out.iter().any(|(x, _)| *x == n) {
                out.push((n, f.clone()));
            }
        }
    }
    out
}

fn all_modules() -> impl Iterator<Item = &'static str> {
    LAYERS.iter().flat_map(|(ms, _)| ms.iter().copied())
}

#[test]
fn every_module_imports_only_its_layer_and_those_below() {
    let mut wrong = Vec::new();
    for m in all_modules() {
        let (here, within) = LAYERS[layer_of(m).unwrap()];
        let i = layer_of(m).unwrap();
        for (n, file) in imports_of(m) {
            let j = layer_of(&n).unwrap();
            let allowed = j < i || (j == i && within == Within::Free && here.contains(&&*n));
            if !allowed {
                let file = file.strip_prefix(src()).unwrap().display().to_string();
                wrong.push(format!("{m} imports {n} (in src/{file})"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "against the layer order of lib.rs:\n{}",
        wrong.join("\n")
    );
}

/// Path choice sits below the transports and the schema (issue 38): it takes the transport's
/// name and needs as plain values, and `config` re-exports its `[routing]` table.
#[test]
fn path_choice_imports_neither_transports_nor_the_schema() {
    let names: Vec<String> = imports_of("lb").into_iter().map(|(n, _)| n).collect();
    for above in ["protocols", "config"] {
        assert!(!names.contains(&above.to_string()), "lb imports {above}");
    }
    assert!(layer_of("lb") < layer_of("protocols") && layer_of("protocols") < layer_of("config"));
}

#[test]
fn the_two_engines_do_not_import_each_other() {
    let names = |m: &str| -> Vec<String> { imports_of(m).into_iter().map(|(n, _)| n).collect() };
    let (engine, flowsim) = (names("engine"), names("flowsim"));
    assert!(
        !engine.contains(&"flowsim".to_string()),
        "engine imports flowsim: put what both need in run"
    );
    assert!(
        !flowsim.contains(&"engine".to_string()),
        "flowsim imports engine: put what both need in run"
    );
    // Both run on the set-up below them.
    assert!(engine.contains(&"run".to_string()));
    assert!(flowsim.contains(&"run".to_string()));
}

#[test]
fn every_module_of_the_crate_has_a_layer_in_the_order_lib_rs_gives() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
        .collect();
    let placed: BTreeSet<&str> = all_modules().collect();
    assert_eq!(declared, placed, "lib.rs's modules and LAYERS differ");
    // The crate doc's list, from "The layers, bottom up" to the next blank doc line: the
    // first mention of each module, as a bare link.
    let doc: Vec<&str> = lib
        .lines()
        .skip_while(|l| !l.contains("The layers, bottom up"))
        .take_while(|l| l.trim() != "//!")
        .collect();
    let mut order: Vec<&str> = Vec::new();
    for l in &doc {
        for (i, _) in l.match_indices("[`") {
            let rest = &l[i + 2..];
            let name = &rest[..rest.find("`]").unwrap_or(0)];
            if placed.contains(name) && !order.contains(&name) {
                order.push(name);
            }
        }
    }
    assert_eq!(order, all_modules().collect::<Vec<_>>());
}

#[test]
fn the_reader_sees_through_comments_tests_and_groups() {
    let code = code_of(
        "use crate::{units::Time, net::{a, b}};\n// crate::flowsim\n\
         let x = crate::rng::x(); /// [`crate::engine`]\n\
         #[cfg(test)]\nmod tests {\n    use crate::engine;\n    fn f() { }\n}\nuse crate::lb;\n",
    );
    let names: Vec<String> = crate_names(&code).into_iter().collect();
    assert_eq!(names, ["lb", "net", "rng", "units"]);
}
