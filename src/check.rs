//! `shogun check`: maps, rules packs and variants checked without playing.
//! Every problem with file:line:column, a severity and a message.

use std::path::{Path, PathBuf};

use crate::engine::Engine;
use crate::rules::{self, Diagnostic, Severity, VariantArg};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Map(PathBuf),
    Pack(PathBuf),
    Variant(PathBuf),
}

impl Target {
    pub fn path(&self) -> &Path {
        match self {
            Target::Map(p) | Target::Pack(p) | Target::Variant(p) => p,
        }
    }
}

/// What a path is: a map file, a pack folder (rules.yaml) or a variant
/// folder (variant.yaml).
pub fn classify(path: &Path) -> Result<Target, String> {
    if path.is_dir() {
        if path.join("variant.yaml").is_file() {
            return Ok(Target::Variant(path.to_path_buf()));
        }
        if path.join("rules.yaml").is_file() {
            return Ok(Target::Pack(path.to_path_buf()));
        }
        return Err(format!("{}: neither a rules pack (rules.yaml) nor a variant (variant.yaml)", path.display()));
    }
    if path.is_file() {
        if path.file_name().is_some_and(|n| n == "variant.yaml") {
            return Ok(Target::Variant(path.parent().unwrap_or(Path::new(".")).to_path_buf()));
        }
        if path.file_name().is_some_and(|n| n == "rules.yaml" || n == "cards.yaml") {
            return Ok(Target::Pack(path.parent().unwrap_or(Path::new(".")).to_path_buf()));
        }
        return Ok(Target::Map(path.to_path_buf()));
    }
    Err(format!("{}: no such file or folder", path.display()))
}

/// Everything shipped under `root`: maps, packs, variants.
pub fn shipped(root: &Path) -> Vec<Target> {
    let list = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect()).unwrap_or_default();
        v.sort();
        v
    };
    let mut out = Vec::new();
    for p in list(&root.join("maps")) {
        if p.extension().is_some_and(|x| x == "yaml") {
            out.push(Target::Map(p));
        }
    }
    for p in list(&root.join("scripts")) {
        if p.join("rules.yaml").is_file() {
            out.push(Target::Pack(p));
        }
    }
    for p in list(&root.join("variants")) {
        if p.join("variant.yaml").is_file() {
            out.push(Target::Variant(p));
        }
    }
    out
}

fn engine_diags(rules: rules::Rules, out: &mut Vec<Diagnostic>) {
    out.extend(rules.warnings.iter().cloned());
    match Engine::new(rules) {
        Ok(e) => out.extend(e.runtime().warnings.iter().cloned()),
        Err(d) => out.extend(d.0),
    }
}

/// Checks one target with the pack and map under `root` where it needs them.
pub fn check(root: &Path, target: &Target) -> Vec<Diagnostic> {
    let base = root.join("scripts/base");
    let sun = root.join("maps/sun.yaml");
    let mut out = Vec::new();
    match target {
        Target::Map(map) => match rules::load(&base, map) {
            Ok(r) => out.extend(r.warnings),
            Err(d) => out.extend(d.0),
        },
        Target::Pack(pack) => match rules::load(pack, &sun) {
            Ok(r) => engine_diags(r, &mut out),
            Err(d) => out.extend(d.0),
        },
        Target::Variant(dir) => {
            let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            let arg = VariantArg { name, options: Vec::new(), given: None };
            match rules::load_with(&base, &sun, &[(dir.clone(), arg)]) {
                Ok(r) => engine_diags(r, &mut out),
                Err(d) => out.extend(d.0),
            }
        }
    }
    out.sort_by(|a, b| (&a.file, a.line, a.column, &a.message).cmp(&(&b.file, b.line, b.column, &b.message)));
    out.dedup();
    out
}

/// Counts of (errors, warnings).
pub fn tally(d: &[Diagnostic]) -> (usize, usize) {
    (d.iter().filter(|x| x.severity == Severity::Error).count(), d.iter().filter(|x| x.severity == Severity::Warning).count())
}
