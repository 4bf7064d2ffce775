//! `shogun check`: maps, rules packs and variants checked without playing.
//! Every problem with file:line:column, a severity and a message.

use std::path::{Path, PathBuf};

use crate::engine::Engine;
use crate::play::data::{Layout, is_variant};
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
    let (rules_file, cards_file, variant_file) = (rules::pack::RULES_FILE, rules::pack::CARDS_FILE, rules::variant::FILE);
    if path.is_dir() {
        if is_variant(path) {
            return Ok(Target::Variant(path.to_path_buf()));
        }
        if rules::pack::is_pack(path) {
            return Ok(Target::Pack(path.to_path_buf()));
        }
        return Err(format!("{}: neither a rules pack ({rules_file}) nor a variant ({variant_file})", path.display()));
    }
    if path.is_file() {
        let folder = || path.parent().unwrap_or(Path::new(".")).to_path_buf();
        if path.file_name().is_some_and(|n| n == variant_file) {
            return Ok(Target::Variant(folder()));
        }
        if path.file_name().is_some_and(|n| n == rules_file || n == cards_file) {
            return Ok(Target::Pack(folder()));
        }
        return Ok(Target::Map(path.to_path_buf()));
    }
    Err(format!("{}: no such file or folder", path.display()))
}

/// Everything shipped in the data folder: maps, packs, variants.
pub fn shipped(layout: &Layout) -> Vec<Target> {
    let (maps, packs, variants) = layout.shipped();
    maps.into_iter().map(Target::Map).chain(packs.into_iter().map(Target::Pack)).chain(variants.into_iter().map(Target::Variant)).collect()
}

fn engine_diags(rules: rules::Rules, out: &mut Vec<Diagnostic>) {
    out.extend(rules.warnings.iter().cloned());
    match Engine::new(rules) {
        Ok(e) => {
            out.extend(e.runtime().warnings.iter().cloned());
            out.extend(e.runtime().loaded_table_writes());
        }
        Err(d) => out.extend(d.0),
    }
}

/// Checks one target with the data folder's base pack and default map
/// where it needs them.
pub fn check(layout: &Layout, target: &Target) -> Vec<Diagnostic> {
    let base = layout.base_pack();
    let mut out = Vec::new();
    let sun = layout.default_map();
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
