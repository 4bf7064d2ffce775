//! A board side: provinces, regions, adjacency, exclusions and presets.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Deserialize;

use super::yaml::{Diagnostics, Positions, YamlFile};
use crate::core::ProvinceId;

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct MapFile {
    pub name: String,
    pub title: String,
    pub provenance: String,
    pub regions: Vec<String>,
    pub provinces: Vec<ProvinceRow>,
    /// Sea routes (adjacency across water), each listed once.
    #[serde(default)]
    pub sea_routes: Vec<SeaRoute>,
    /// Player count -> provinces out of play with that many players.
    #[serde(default)]
    pub out_of_play: BTreeMap<u8, Vec<String>>,
    /// Player count -> one mapping per seat: province -> armies.
    #[serde(default)]
    pub presets: BTreeMap<u8, Vec<BTreeMap<String, i64>>>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ProvinceRow {
    pub name: String,
    pub region: String,
    pub tax: i64,
    pub rice: i64,
    pub spaces: i64,
    #[serde(default)]
    pub borders: Vec<String>,
    /// Where the province lies, for pictures of the board: degrees east
    /// and north (every province gives both, or none does).
    #[serde(default)]
    pub lon: Option<f64>,
    #[serde(default)]
    pub lat: Option<f64>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SeaRoute {
    pub between: [String; 2],
    /// Not known from a source: an assumption a user may correct.
    #[serde(default)]
    pub assumed: bool,
}

#[derive(Clone, Debug)]
pub struct Province {
    pub name: String,
    pub region: usize,
    pub tax: u32,
    pub rice: u32,
    pub spaces: u32,
    pub borders: Vec<usize>,
    pub sea_routes: Vec<usize>,
    /// Borders and sea routes together, sorted by province index.
    pub neighbours: Vec<usize>,
    /// Degrees east and north, when the map gives positions.
    pub at: Option<(f64, f64)>,
}

/// The most provinces a map may have: `ProvinceId` holds an index in 16
/// bits. The lab's `merge` bounds a record's provinces by it when the
/// header does not give the arm's own map's count (files of older runs).
pub const MAX_PROVINCES: usize = 1 << 16;

#[derive(Clone, Debug)]
pub struct Map {
    pub name: String,
    pub title: String,
    pub provenance: String,
    pub regions: Vec<String>,
    pub provinces: Vec<Province>,
    pub by_name: HashMap<String, usize>,
    /// The provinces of each region, by index, in map order.
    pub in_region: Vec<Vec<usize>>,
    pub out_of_play: BTreeMap<u8, Vec<usize>>,
    pub presets: BTreeMap<u8, Vec<Vec<(usize, u32)>>>,
    /// Sea routes marked as assumed.
    pub assumed_sea_routes: Vec<(usize, usize)>,
}

impl Map {
    pub fn province(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The province `p` of this map.
    pub fn at(&self, p: ProvinceId) -> &Province {
        &self.provinces[p.index()]
    }

    /// The provinces next to `p` (borders and sea routes), by index.
    pub fn neighbours(&self, p: ProvinceId) -> impl Iterator<Item = ProvinceId> + '_ {
        self.provinces[p.index()].neighbours.iter().map(|&q| ProvinceId::new(q))
    }

    /// A one-line notice naming what this map assumes, if anything.
    pub fn assumption_notice(&self) -> Option<String> {
        if self.assumed_sea_routes.is_empty() {
            return None;
        }
        let pairs: Vec<String> = self.assumed_sea_routes.iter().map(|&(a, b)| format!("{}-{}", self.provinces[a].name, self.provinces[b].name)).collect();
        Some(format!("notice: map `{}` assumes {} sea route(s) not known from a source ({}); see its provenance", self.name, pairs.len(), pairs.join(", ")))
    }

    /// Every province's position (degrees east, north), when the map
    /// gives them (the loader makes it all or none).
    pub fn positions(&self) -> Option<Vec<(f64, f64)>> {
        self.provinces.iter().map(|p| p.at).collect()
    }

    pub fn adjacent(&self, a: usize, b: usize) -> bool {
        self.provinces[a].neighbours.binary_search(&b).is_ok()
    }

    /// Which provinces are in play with `players` players.
    pub fn in_play(&self, players: u8) -> Vec<bool> {
        let mut v = vec![true; self.provinces.len()];
        if let Some(out) = self.out_of_play.get(&players) {
            for &p in out {
                v[p] = false;
            }
        }
        v
    }

    /// Resolves names and checks the map, reporting every problem found.
    pub fn from_file(file: &YamlFile<MapFile>, diags: &mut Diagnostics) -> Option<Map> {
        let m = &file.value;
        if m.provinces.len() > MAX_PROVINCES {
            let n = m.provinces.len();
            diags.error(&file.path, file.pos.of("provinces"), format!("{n} provinces: a map has at most {MAX_PROVINCES} (a province's id is 16 bits)"));
            return None;
        }
        let errors = |diags: &Diagnostics| diags.0.iter().filter(|d| d.severity == super::yaml::Severity::Error).count();
        let errors_before = errors(diags);
        let r = Reading::new(file, diags);
        let mut provinces = r.provinces(diags);
        r.check_positions(&provinces, diags);
        r.check_borders_two_sided(&provinces, diags);
        let assumed_sea_routes = r.sea_routes(&mut provinces, diags);
        for p in provinces.iter_mut() {
            p.neighbours = p.borders.iter().chain(p.sea_routes.iter()).copied().collect();
            p.neighbours.sort_unstable();
            p.neighbours.dedup();
        }
        r.check_connected(&provinces, diags);
        r.check_region_sizes(&provinces, diags);
        let out_of_play = r.out_of_play(diags);
        let presets = r.presets(&out_of_play, diags);
        if errors(diags) > errors_before {
            return None;
        }
        let mut in_region = vec![Vec::new(); m.regions.len()];
        for (i, p) in provinces.iter().enumerate() {
            in_region[p.region].push(i);
        }
        Some(Map {
            in_region,
            name: m.name.clone(),
            title: m.title.clone(),
            provenance: m.provenance.clone(),
            regions: m.regions.clone(),
            provinces,
            by_name: r.by_name,
            out_of_play,
            presets,
            assumed_sea_routes,
        })
    }
}

/// A map file being read: its rows, where each one is, and the provinces
/// by name.
struct Reading<'a> {
    m: &'a MapFile,
    path: &'a Path,
    pos: &'a Positions,
    regions: HashMap<&'a str, usize>,
    by_name: HashMap<String, usize>,
}

impl<'a> Reading<'a> {
    /// Indexes the regions and provinces by name (a name given twice is
    /// an error).
    fn new(file: &'a YamlFile<MapFile>, diags: &mut Diagnostics) -> Reading<'a> {
        let (m, path, pos) = (&file.value, file.path.as_path(), &file.pos);
        let mut regions: HashMap<&str, usize> = HashMap::new();
        for (i, r) in m.regions.iter().enumerate() {
            if regions.insert(r.as_str(), i).is_some() {
                diags.error(path, pos.of(&format!("regions/{i}")), format!("region `{r}` is listed twice"));
            }
        }
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (i, p) in m.provinces.iter().enumerate() {
            if by_name.insert(p.name.clone(), i).is_some() {
                diags.error(path, pos.of(&format!("provinces/{i}/name")), format!("province `{}` is defined twice", p.name));
            }
        }
        Reading { m, path, pos, regions, by_name }
    }

    /// The province named `name`; an unknown name is an error at `at`.
    fn lookup(&self, name: &str, at: String, diags: &mut Diagnostics) -> Option<usize> {
        let found = self.by_name.get(name).copied();
        if found.is_none() {
            diags.error(self.path, self.pos.of(&at), format!("unknown province `{name}`{}", suggest(name, self.by_name.keys())));
        }
        found
    }

    /// Every province row resolved: its region, numbers in range, borders
    /// by index, position. Sea routes and neighbours come later.
    fn provinces(&self, diags: &mut Diagnostics) -> Vec<Province> {
        let (m, path, pos) = (self.m, self.path, self.pos);
        let mut provinces = Vec::new();
        for (i, p) in m.provinces.iter().enumerate() {
            let at = |field: &str| format!("provinces/{i}/{field}");
            let region = self.regions.get(p.region.as_str()).copied().unwrap_or_else(|| {
                let known = m.regions.join(", ");
                diags.error(path, pos.of(&at("region")), format!("province `{}`: unknown region `{}` (regions: {known})", p.name, p.region));
                0
            });
            for (field, v, lo, hi) in [("tax", p.tax, 0, 99), ("rice", p.rice, 0, 99), ("spaces", p.spaces, 1, 3)] {
                if v < lo || v > hi {
                    diags.error(path, pos.of(&at(field)), format!("province `{}`: {field} is {v}, expected {lo}..={hi}", p.name));
                }
            }
            let at = position(p, i, diags, path, pos);
            let borders = self.borders(i, p, diags);
            provinces.push(Province {
                name: p.name.clone(),
                region,
                tax: p.tax.clamp(0, 99) as u32,
                rice: p.rice.clamp(0, 99) as u32,
                spaces: p.spaces.clamp(0, 3) as u32,
                neighbours: borders.clone(),
                borders,
                sea_routes: Vec::new(),
                at,
            });
        }
        provinces
    }

    /// Row `i`'s borders by index: each a known province, not itself, once.
    fn borders(&self, i: usize, p: &ProvinceRow, diags: &mut Diagnostics) -> Vec<usize> {
        let mut out = Vec::new();
        for (j, n) in p.borders.iter().enumerate() {
            let at = format!("provinces/{i}/borders/{j}");
            let Some(k) = self.lookup(n, at.clone(), diags) else { continue };
            if k == i {
                diags.error(self.path, self.pos.of(&at), format!("province `{}` lists itself as a neighbour", p.name));
            } else if out.contains(&k) {
                diags.error(self.path, self.pos.of(&at), format!("province `{}` lists `{n}` twice in borders", p.name));
            } else {
                out.push(k);
            }
        }
        out
    }

    /// Positions: every province has one, or none has.
    fn check_positions(&self, provinces: &[Province], diags: &mut Diagnostics) {
        let placed = provinces.iter().filter(|p| p.at.is_some()).count();
        if placed == 0 || placed == provinces.len() {
            return;
        }
        for (i, p) in self.m.provinces.iter().enumerate().filter(|(_, p)| p.lon.is_none() && p.lat.is_none()) {
            diags.error(
                self.path,
                self.pos.of(&format!("provinces/{i}/name")),
                format!("province `{}` has no position, but {placed} other provinces have one: give every province `lon:` and `lat:`, or none", p.name),
            );
        }
    }

    /// Land borders must be stated on both sides.
    fn check_borders_two_sided(&self, provinces: &[Province], diags: &mut Diagnostics) {
        for (i, p) in provinces.iter().enumerate() {
            for (j, &k) in p.borders.iter().enumerate() {
                let other = &provinces[k];
                if !other.borders.contains(&i) {
                    diags.error(
                        self.path,
                        self.pos.of(&format!("provinces/{i}/borders/{j}")),
                        format!(
                            "`{}` lists `{}` in borders, but `{}` does not list `{}` back (borders must be two-sided)",
                            p.name, other.name, other.name, p.name
                        ),
                    );
                }
            }
        }
    }

    /// Adds the sea routes to both provinces of each; returns the routes
    /// marked as assumed (by index, lower first).
    fn sea_routes(&self, provinces: &mut [Province], diags: &mut Diagnostics) -> Vec<(usize, usize)> {
        let (path, pos) = (self.path, self.pos);
        let mut assumed = Vec::new();
        for (r, route) in self.m.sea_routes.iter().enumerate() {
            let a = self.lookup(&route.between[0], format!("sea_routes/{r}/between/0"), diags);
            let b = self.lookup(&route.between[1], format!("sea_routes/{r}/between/1"), diags);
            let (Some(a), Some(b)) = (a, b) else { continue };
            let at = pos.of(&format!("sea_routes/{r}"));
            if a == b {
                diags.error(path, at, format!("a sea route from `{}` to itself", route.between[0]));
                continue;
            }
            if provinces[a].sea_routes.contains(&b) {
                diags.error(path, at, format!("the sea route {}-{} is listed twice", route.between[0], route.between[1]));
                continue;
            }
            if provinces[a].borders.contains(&b) {
                diags.warning(path, at, format!("{} and {} already share a land border", route.between[0], route.between[1]));
            }
            provinces[a].sea_routes.push(b);
            provinces[b].sea_routes.push(a);
            if route.assumed {
                assumed.push((a.min(b), a.max(b)));
            }
        }
        assumed
    }

    /// Every province reachable from every other.
    fn check_connected(&self, provinces: &[Province], diags: &mut Diagnostics) {
        if provinces.is_empty() {
            return;
        }
        let mut seen = vec![false; provinces.len()];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(x) = stack.pop() {
            for &n in &provinces[x].neighbours {
                if !seen[n] {
                    seen[n] = true;
                    stack.push(n);
                }
            }
        }
        let cut: Vec<&str> = provinces.iter().zip(seen.iter()).filter(|(_, s)| !**s).map(|(p, _)| p.name.as_str()).collect();
        if !cut.is_empty() {
            diags.error(
                self.path,
                self.pos.of("provinces"),
                format!("the map is not connected: {} cannot be reached from {} ({} province(s))", cut.join(", "), provinces[0].name, cut.len()),
            );
        }
    }

    /// Regions of one size (a warning otherwise).
    fn check_region_sizes(&self, provinces: &[Province], diags: &mut Diagnostics) {
        let regions = &self.m.regions;
        let mut sizes: BTreeMap<usize, usize> = BTreeMap::new();
        for p in provinces {
            *sizes.entry(p.region).or_default() += 1;
        }
        let counts: Vec<usize> = (0..regions.len()).map(|r| sizes.get(&r).copied().unwrap_or(0)).collect();
        if counts.iter().any(|&c| c != counts[0]) {
            let desc: Vec<String> = regions.iter().zip(counts.iter()).map(|(r, c)| format!("{r} {c}")).collect();
            diags.warning(self.path, self.pos.of("regions"), format!("regions differ in size: {}", desc.join(", ")));
        }
    }

    /// The provinces out of play, by player count.
    fn out_of_play(&self, diags: &mut Diagnostics) -> BTreeMap<u8, Vec<usize>> {
        let mut out_of_play = BTreeMap::new();
        for (n, list) in &self.m.out_of_play {
            let v = list.iter().enumerate().filter_map(|(j, name)| self.lookup(name, format!("out_of_play/{n}/{j}"), diags)).collect();
            out_of_play.insert(*n, v);
        }
        out_of_play
    }

    /// The preset starting armies by player count, one list per seat:
    /// each province known, in play, at least one army, given to one seat.
    fn presets(&self, out_of_play: &BTreeMap<u8, Vec<usize>>, diags: &mut Diagnostics) -> BTreeMap<u8, Vec<Vec<(usize, u32)>>> {
        let (path, pos) = (self.path, self.pos);
        let mut presets = BTreeMap::new();
        for (n, seats) in &self.m.presets {
            let out = out_of_play.get(n).cloned().unwrap_or_default();
            let mut all = Vec::new();
            let mut taken: HashMap<usize, usize> = HashMap::new();
            if seats.len() != *n as usize {
                diags.error(path, pos.of(&format!("presets/{n}")), format!("preset for {n} players has {} seats", seats.len()));
            }
            for (s, armies) in seats.iter().enumerate() {
                let mut v = Vec::new();
                for (name, count) in armies {
                    let at = format!("presets/{n}/{s}/{name}");
                    let Some(k) = self.by_name.get(name).copied() else {
                        diags.error(path, pos.key(&at), format!("unknown province `{name}`{}", suggest(name, self.by_name.keys())));
                        continue;
                    };
                    if *count < 1 {
                        diags.error(path, pos.of(&at), format!("preset armies in `{name}` must be at least 1, found {count}"));
                    }
                    if out.contains(&k) {
                        diags.error(path, pos.key(&at), format!("`{name}` is out of play with {n} players but has a preset army"));
                    }
                    if let Some(other) = taken.insert(k, s) {
                        diags.error(path, pos.key(&at), format!("`{name}` is given to seat {} and seat {} in the {n}-player preset", other + 1, s + 1));
                    }
                    v.push((k, (*count).max(0) as u32));
                }
                v.sort_unstable();
                all.push(v);
            }
            presets.insert(*n, all);
        }
        presets
    }
}

/// A province's position from its `lon` and `lat` (degrees east and
/// north), both given or neither; an error names the field and its line.
fn position(p: &ProvinceRow, i: usize, diags: &mut Diagnostics, path: &Path, pos: &Positions) -> Option<(f64, f64)> {
    let at = |field: &str| pos.of(&format!("provinces/{i}/{field}"));
    let mut ok = true;
    for (field, v, limit) in [("lon", p.lon, 180.0), ("lat", p.lat, 90.0)] {
        if let Some(v) = v
            && !(v.is_finite() && v.abs() <= limit)
        {
            diags.error(path, at(field), format!("province `{}`: {field} is {v}, expected degrees from -{limit} to {limit}", p.name));
            ok = false;
        }
    }
    match (p.lon, p.lat) {
        (Some(lon), Some(lat)) => ok.then_some((lon, lat)),
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            let (has, lacks) = if p.lon.is_some() { ("lon", "lat") } else { ("lat", "lon") };
            diags.error(path, at(has), format!("province `{}` gives `{has}` but not `{lacks}`: a position needs both (degrees east and north)", p.name));
            None
        }
    }
}

/// ", did you mean `X`?" for the closest known name, if one is close (all
/// of the equally close ones, up to three: "`X` or `Y`"). Close is at most
/// a third of the name's letters, rounded, and at least one edit:
/// insertions, deletions, substitutions and swaps of two neighbouring
/// letters (`stpe` is one edit from `step`). So a short word gets a
/// suggestion only for one slip (`foo` is two edits from `log`: none).
pub fn suggest<'a>(name: &str, known: impl Iterator<Item = &'a String>) -> String {
    let lower = name.to_lowercase();
    let chars = lower.chars().count();
    let most = 1.max((chars + 1) / 3);
    // A name whose length differs by more than `most` letters is more
    // than `most` edits away: not measured (a long typo or a pasted line
    // is compared with nothing).
    let mut scored: Vec<(usize, &str)> = known
        .filter_map(|k| {
            let k_lower = k.to_lowercase();
            (k_lower.chars().count().abs_diff(chars) <= most).then(|| (strsim::osa_distance(&lower, &k_lower), k.as_str()))
        })
        .filter(|&(d, _)| d <= most)
        .collect();
    scored.sort();
    scored.dedup();
    let Some(&(best, _)) = scored.first() else { return String::new() };
    let close: Vec<String> = scored.iter().take_while(|(d, _)| *d == best).take(3).map(|(_, k)| format!("`{k}`")).collect();
    format!(", did you mean {}?", close.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::suggest;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn suggestions_name_the_closest_names_within_a_third_of_the_length() {
        let known = names(&["step", "stop", "round", "Settsu", "Omi"]);
        assert_eq!(suggest("stpe", known.iter()), ", did you mean `step`?");
        assert_eq!(suggest("stap", known.iter()), ", did you mean `step` or `stop`?");
        assert_eq!(suggest("settsu", known.iter()), ", did you mean `Settsu`?");
        assert_eq!(suggest("Omii", known.iter()), ", did you mean `Omi`?");
        assert_eq!(suggest("xyz", known.iter()), "");
        // One edit below five letters, two from five, three from eight.
        assert_eq!(suggest("rxxnd", known.iter()), ", did you mean `round`?");
        assert_eq!(suggest("rxxxd", known.iter()), "");
        assert_eq!(suggest("Oma", known.iter()), ", did you mean `Omi`?");
        assert_eq!(suggest("Oxa", known.iter()), "");
        assert_eq!(suggest("stxx", known.iter()), "");
        assert_eq!(suggest("Sxttsx", known.iter()), ", did you mean `Settsu`?");
        let long = names(&["province_lost"]);
        assert_eq!(suggest("provinxe_losx", long.iter()), ", did you mean `province_lost`?");
        assert_eq!(suggest("prxvinxe_losx", long.iter()), ", did you mean `province_lost`?");
        assert_eq!(suggest("prxvxnxe_losx", long.iter()), ", did you mean `province_lost`?");
        assert_eq!(suggest("prxvxnxe_lxsx", long.iter()), "");
    }

    /// A word as short as `foo` is two edits from `log`: too far to mean it.
    #[test]
    fn a_short_word_gets_a_suggestion_for_one_slip_only() {
        let known = names(&["log", "load", "lua", "next"]);
        assert_eq!(suggest("foo", known.iter()), "");
        assert_eq!(suggest("lgo", known.iter()), ", did you mean `log`?");
        assert_eq!(suggest("nxet", known.iter()), ", did you mean `next`?");
    }

    #[test]
    fn a_name_far_longer_than_every_known_one_gets_no_suggestion() {
        let known = names(&["step", "round"]);
        assert_eq!(suggest(&"stepx".repeat(20_000), known.iter()), "");
        assert_eq!(suggest(&"é".repeat(7), names(&["éé"]).iter()), "");
    }
}
