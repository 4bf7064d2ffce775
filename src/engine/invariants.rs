//! Conservation rules every state at rest must satisfy. `Engine::apply`
//! checks them after every decision and undoes a decision that breaks one.

use crate::core::{GameState, ProvinceId, Seat};
use crate::rules::Rules;

pub fn check(rules: &Rules, st: &GameState) -> Result<(), String> {
    let c = &rules.rules.components;
    // Cubes on the board per seat, counted in one pass.
    let mut board = [0u32; crate::core::MAX_SEATS];
    for p in &st.provinces {
        if let Some(o) = p.owner {
            board[o.index().min(crate::core::MAX_SEATS - 1)] += u32::from(p.armies);
        }
    }
    for s in 0..st.seats() {
        let tower: u32 = st.tower.iter().map(|l| u32::from(l.seats[s])).sum();
        let n = u32::from(st.players[s].supply) + board[s] + tower + u32::from(st.tray.seats[s]);
        if i64::from(n) != c.cubes_per_player {
            return Err(format!("seat {} has {n} cubes in all, expected {}", rules.seat_name(Seat::new(s)), c.cubes_per_player));
        }
        let p = &st.players[s];
        if p.chests < 0 {
            return Err(format!("seat {} has {} war chests", rules.seat_name(Seat::new(s)), p.chests));
        }
        if p.rice < 0 {
            return Err(format!("seat {} has {} rice", rules.seat_name(Seat::new(s)), p.rice));
        }
    }
    for s in st.seats()..crate::core::MAX_SEATS {
        if st.tray.seats[s] > 0 || st.tower.iter().any(|l| l.seats[s] > 0) {
            return Err(format!("the tower or tray holds cubes of seat {}, which does not play", s + 1));
        }
    }
    if i64::from(st.peasants_total()) != c.peasants {
        return Err(format!("{} peasants in all, expected {}", st.peasants_total(), c.peasants));
    }
    let mut unrest = u32::from(st.unrest);
    // Per building kind (the rules allow at most 8: `buildings` is a u8).
    let mut built = [0u32; u8::BITS as usize];
    let kinds = c.buildings.len();
    for (i, p) in st.provinces.iter().enumerate() {
        let on_map = rules.map.at(ProvinceId::new(i));
        let name = on_map.name.as_str();
        unrest += u32::from(p.unrest);
        // (Most provinces have no building: nothing to count or check.)
        if p.buildings != 0 {
            let mut bits = p.buildings;
            while bits != 0 {
                built[bits.trailing_zeros() as usize] += 1;
                bits &= bits - 1;
            }
            if has_unknown_kind(p.buildings, kinds) {
                return Err(format!("{name} holds a building of an unknown kind"));
            }
            if p.building_count() > on_map.spaces {
                return Err(format!("{name} holds more buildings than it has spaces"));
            }
        }
        match p.owner {
            None => {
                if p.armies > 0 || p.buildings != 0 || p.unrest > 0 {
                    return Err(format!("neutral {name} holds armies, buildings or unrest"));
                }
            }
            Some(o) => {
                if o.index() >= st.seats() {
                    return Err(format!("{name} is held by a seat that does not play"));
                }
                if !st.in_play[i] {
                    return Err(format!("{name} is out of play but held by {}", rules.seat_name(o)));
                }
                if p.armies == 0 {
                    return Err(format!("{name} is held by {} without any army", rules.seat_name(o)));
                }
            }
        }
    }
    if i64::from(unrest) != c.unrest_markers {
        return Err(format!("{unrest} unrest markers in all, expected {}", c.unrest_markers));
    }
    for (k, b) in built.iter().take(kinds).enumerate() {
        if i64::from(b + u32::from(st.buildings[k])) != c.buildings[k].count {
            return Err(format!("{} {}s in all, expected {}", b + u32::from(st.buildings[k]), c.buildings[k].id, c.buildings[k].count));
        }
    }
    Ok(())
}

/// Whether `buildings` (a bit per kind) holds a kind at or past `kinds`.
/// Shifted as a u32: with 8 kinds a u8 shift by 8 overflows (a panic in a
/// debug build; in a release build the shift wrapped to 0 and every
/// province with a building was "of an unknown kind").
fn has_unknown_kind(buildings: u8, kinds: usize) -> bool {
    u32::from(buildings) >> kinds.min(u8::BITS as usize) != 0
}

#[cfg(test)]
mod tests {
    use super::has_unknown_kind;

    #[test]
    fn eight_building_kinds_have_no_unknown_kind() {
        assert!(!has_unknown_kind(0b1000_0001, 8));
        assert!(!has_unknown_kind(0b0000_0111, 3));
        assert!(has_unknown_kind(0b0000_1000, 3));
        assert!(has_unknown_kind(0b0000_0001, 0));
    }
}
