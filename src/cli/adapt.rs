//! `shogun lab --adapt`: every arm's planner tuned to its ruleset before
//! the lab measures (`crate::lab::tune::Adaptation`), and the cache of the
//! players found: one small JSON file per search, named by the SHA-256 of
//! everything that fixes its result (this program, the arm's rules hash,
//! the search's settings), so a second run with the same rules plays the
//! same players without tuning again. An entry that cannot be read or does
//! not fit (`Adaptation::check`) is ignored with a note and tuned again: an
//! entry this program wrote never changes a result, it only saves the
//! search. (An entry written by hand that fits every check is taken as it
//! is: the cache is trusted like the rules files.)

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::lab::Lab;
use crate::lab::tune::{self, Adaptation, AdaptedArm};

/// The environment variable naming the cache's folder (`--adapt-cache`
/// wins over it).
pub const CACHE_ENV: &str = "SHOGUN_TUNE_CACHE";

/// The cache files' format (2: entries hold the final check).
const FORMAT: u32 = 2;

/// Where tuned players are cached: `--adapt-cache DIR` (`none`: nowhere),
/// else `$SHOGUN_TUNE_CACHE`, else `$XDG_CACHE_HOME/shogun-lab/tuned`,
/// else `$HOME/.cache/shogun-lab/tuned`; `None` when none of them is set.
/// A relative `$XDG_CACHE_HOME` is ignored (as the XDG specification asks);
/// an empty `--adapt-cache` and a relative `$HOME` are refused (they would
/// cache into whatever folder the lab runs in).
pub fn cache_dir(option: Option<&Path>, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Option<PathBuf>, String> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if option.is_some_and(|o| o.as_os_str().is_empty()) {
        return Err("--adapt-cache \"\": give a folder, or `none` for no cache".into());
    }
    if let Some(dir) = option.map(Path::to_path_buf).or_else(|| set(CACHE_ENV)) {
        return Ok((dir.as_os_str() != "none").then_some(dir));
    }
    if let Some(xdg) = set("XDG_CACHE_HOME").filter(|d| d.is_absolute()) {
        return Ok(Some(xdg.join("shogun-lab").join("tuned")));
    }
    match set("HOME") {
        Some(home) if !home.is_absolute() => Err(format!(
            "--adapt: HOME={} is not an absolute folder, so the tuned players have no cache folder; give --adapt-cache DIR (or none) or set ${CACHE_ENV}",
            home.display()
        )),
        home => Ok(home.map(|h| h.join(".cache").join("shogun-lab").join("tuned"))),
    }
}

/// One cache file: the text its name hashes (checked on reading, so a
/// file renamed or edited by hand is not taken for another search) and
/// the planner found.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    format: u32,
    key: String,
    found: AdaptedArm,
}

/// This program, as a cache key names it: its version and the SHA-256 of
/// its executable, so a build that plays differently never reads what
/// another build tuned.
fn program() -> Result<String, String> {
    use sha2::Digest;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program's executable: {e}"))?;
    let mut f = std::fs::File::open(&exe).map_err(|e| format!("cannot read {}: {e}", exe.display()))?;
    let mut hash = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(|e| format!("cannot read {}: {e}", exe.display()))?;
        if n == 0 {
            break;
        }
        hash.update(&buf[..n]);
    }
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("program\t{}\t{hex}\n", crate::lab::version()))
}

/// The planner a cache file holds for `key`, if it holds a fitting one;
/// a note on standard error when a file is there but not used.
fn read_entry(path: &Path, key: &str, adaptation: &Adaptation) -> Option<AdaptedArm> {
    if std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return None;
    }
    let entry = crate::files::read_text(path).and_then(|text| serde_json::from_str::<Entry>(&text).map_err(|e| format!("not a cache entry ({e})")));
    let checked = entry.and_then(|e| {
        if e.format != FORMAT || e.key != key {
            return Err("written for another search".to_string());
        }
        adaptation.check(&e.found)?;
        Ok(e.found)
    });
    match checked {
        Ok(found) => Some(found),
        Err(why) => {
            eprintln!("note: --adapt: ignoring the cached players in {}: {why}; tuning again", path.display());
            None
        }
    }
}

fn write_entry(path: &Path, key: &str, found: &AdaptedArm) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let entry = Entry { format: FORMAT, key: key.to_string(), found: found.clone() };
    let text = serde_json::to_string_pretty(&entry).map_err(|e| e.to_string())?;
    crate::files::write_atomic(path, format!("{text}\n").as_bytes())
}

/// Tunes each arm's planner (or reads it from the cache in `dir`) and
/// adds the adapted condition to `lab`. Progress on a terminal; a line
/// per arm on standard error.
pub fn adapt(lab: &mut Lab, mut adaptation: Adaptation, dir: Option<&Path>) -> Result<(), String> {
    let program = match dir.map(|_| program()) {
        Some(Err(e)) => {
            eprintln!("note: --adapt: tuned players are not cached: {e}");
            None
        }
        Some(Ok(p)) => Some(p),
        None => None,
    };
    let k = lab.arms.len();
    let mut found: Vec<Option<AdaptedArm>> = vec![None; k];
    let mut places: Vec<Option<(PathBuf, String)>> = vec![None; k];
    if let (Some(dir), Some(program)) = (dir, &program) {
        for a in 0..k {
            let key = format!("{program}{}", adaptation.key(lab, a));
            let path = dir.join(format!("{}.json", crate::rules::sha256(key.as_bytes())));
            found[a] = read_entry(&path, &key, &adaptation);
            places[a] = Some((path, key));
        }
    }
    // The search (whole trials of a coordinate search), then the check
    // (played only when a step was kept).
    let per_arm = adaptation.per_arm();
    let untuned = found.iter().filter(|f| f.is_none()).count() as u64;
    if untuned > 0 {
        eprintln!("--adapt: tuning the planner to {untuned} arm(s), at most {per_arm} games each (the search and its check)");
    }
    let bar = super::Progress::bar_only(per_arm * untuned);
    let mut lines = Vec::new();
    let mut base = 0;
    for a in 0..k {
        let name = crate::lab::report::short(&lab.arms[a].name).to_string();
        if let Some(f) = &found[a] {
            let from = places[a].as_ref().map(|(p, _)| p.display().to_string()).unwrap_or_default();
            lines.push(format!("--adapt: arm {} ({name}): {} from the cache ({from})", a + 1, f.bot));
            continue;
        }
        let spec = adaptation.spec(lab, a)?;
        let started = std::time::Instant::now();
        let tuned = tune::tune(&spec, &|done| bar.set(base + done)).map_err(|e| format!("--adapt: arm `{name}`: {e}"))?;
        base += per_arm;
        let arm = tuned.adapted(&spec.options);
        let check = arm.check.as_ref().map(|c| format!("; check against {}: {}", adaptation.from, c.text())).unwrap_or_default();
        lines.push(format!("--adapt: arm {} ({name}): {} tuned in {} games{check}, {:.1} s", a + 1, arm.bot, arm.games, started.elapsed().as_secs_f64()));
        if let Some((path, key)) = &places[a]
            && let Err(e) = write_entry(path, key, &arm)
        {
            lines.push(format!("note: --adapt: the tuned players are not cached: {e}"));
        }
        found[a] = Some(arm);
    }
    bar.finish();
    for l in lines {
        eprintln!("{l}");
    }
    adaptation.arms = found.into_iter().flatten().collect();
    lab.adapt(adaptation)
}

#[cfg(test)]
mod tests {
    use super::cache_dir;
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};

    #[test]
    fn the_cache_folder_comes_from_the_option_the_environment_or_home() {
        let env = |vars: &'static [(&'static str, &'static str)]| move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v));
        let all = env(&[("SHOGUN_TUNE_CACHE", "/c"), ("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]);
        assert_eq!(cache_dir(Some(Path::new("/o")), &all), Ok(Some(PathBuf::from("/o"))));
        assert_eq!(cache_dir(Some(Path::new("none")), &all), Ok(None));
        assert_eq!(cache_dir(None, &all), Ok(Some(PathBuf::from("/c"))));
        assert_eq!(cache_dir(None, &env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])), Ok(Some(PathBuf::from("/x/shogun-lab/tuned"))));
        assert_eq!(cache_dir(None, &env(&[("XDG_CACHE_HOME", "rel"), ("HOME", "/h")])), Ok(Some(PathBuf::from("/h/.cache/shogun-lab/tuned"))));
        assert_eq!(cache_dir(None, &env(&[("SHOGUN_TUNE_CACHE", "none"), ("HOME", "/h")])), Ok(None));
        assert_eq!(cache_dir(None, &env(&[])), Ok(None));
    }

    /// An empty --adapt-cache and a relative $HOME would cache into the
    /// folder the lab runs in: refused, with what to do instead.
    #[test]
    fn an_empty_cache_option_and_a_relative_home_are_refused() {
        let env = |vars: &'static [(&'static str, &'static str)]| move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v));
        let e = cache_dir(Some(Path::new("")), &env(&[("HOME", "/h")])).unwrap_err();
        assert!(e.contains("--adapt-cache") && e.contains("none"), "{e}");
        let e = cache_dir(None, &env(&[("HOME", "home/me")])).unwrap_err();
        assert!(e.contains("HOME=home/me") && e.contains("--adapt-cache"), "{e}");
        let e = cache_dir(None, &env(&[("XDG_CACHE_HOME", "rel"), ("HOME", "rel2")])).unwrap_err();
        assert!(e.contains("HOME=rel2"), "{e}");
        assert_eq!(cache_dir(Some(Path::new("/o")), &env(&[("HOME", "rel")])), Ok(Some(PathBuf::from("/o"))));
    }
}
