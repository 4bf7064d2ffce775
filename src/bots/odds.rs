//! What bots believe about battles: the attacker's chance to win, from the
//! rules' own tower and battle rule (`tower::odds`, the figures `shogun
//! tower odds` prints), simulated once per engine and kept per thread.
//!
//! The table starts from an empty tower and tray and ignores the event and
//! specials in force: a bot's rough guide, not the exact chance of a
//! position. The simulation throws into private piles and calls the pack's
//! battle handler only; no game state is touched.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::engine::Engine;
use crate::rules::Rules;
use crate::tower::TowerModel;
use crate::tower::odds::{OddsQuery, odds};

/// Attackers 1..=MAX_ATTACK against defenders 0..=MAX_DEFEND (0: neutral).
const MAX_ATTACK: usize = 12;
const MAX_DEFEND: usize = 10;
/// Simulated battles per cell (the figures need only be roughly right).
const TRIALS: u32 = 100;

/// The attacker's chance to win, by attacking and defending cubes.
pub(crate) struct WinTable {
    /// `p[(a - 1) * (MAX_DEFEND + 1) + d]`.
    p: Vec<f64>,
}

impl WinTable {
    /// The chance that `attack` cubes take a province `defend` cubes hold
    /// (0: a neutral province, with the rules' peasants). Beyond the table
    /// both sides are scaled down in proportion.
    pub(crate) fn win(&self, attack: i64, defend: i64) -> f64 {
        if attack <= 0 {
            return 0.0;
        }
        // Within the table (most asks): the cell itself, which is what the
        // scaling below comes to there (its factor is 1).
        let defend = defend.max(0);
        if attack <= MAX_ATTACK as i64 && defend <= MAX_DEFEND as i64 {
            return self.p[(attack as usize - 1) * (MAX_DEFEND + 1) + defend as usize];
        }
        self.scaled(attack, defend)
    }

    /// `win` by scaling the ask into the table (`attack` > 0).
    fn scaled(&self, attack: i64, defend: i64) -> f64 {
        let (mut a, mut d) = (attack as f64, defend.max(0) as f64);
        let shrink = (MAX_ATTACK as f64 / a).min(MAX_DEFEND as f64 / d.max(1.0)).min(1.0);
        a *= shrink;
        d *= shrink;
        let (a, d) = ((a.round() as usize).clamp(1, MAX_ATTACK), (d.round() as usize).min(MAX_DEFEND));
        self.p[(a - 1) * (MAX_DEFEND + 1) + d]
    }

    fn simulate(engine: &Engine) -> WinTable {
        let peasants = engine.rules.bots.neutral_peasants;
        let tower = engine.tower();
        let rt = engine.runtime();
        let mut p = Vec::with_capacity(MAX_ATTACK * (MAX_DEFEND + 1));
        for a in 1..=MAX_ATTACK {
            for d in 0..=MAX_DEFEND {
                let q = OddsQuery {
                    attack: a as u16,
                    defend: d as u16,
                    peasants: if d == 0 { peasants } else { 0 },
                    unrest: false,
                    defender_extra: 0,
                    preload: None,
                    preload_cubes: 0,
                    preload_peasants: 0,
                    trials: TRIALS,
                    seed: 1 + (a * 100 + d) as u64,
                };
                let sim = odds(tower.as_ref(), &q, |kind, a, d, p, u| rt.battle_outcome(kind, a, d, p, u).map_err(|e| e.to_string()));
                // A tower that cannot throw by itself (`scripted`): more cubes win.
                p.push(sim.map(|o| o.attacker_wins.p).unwrap_or(if a > d.max(1) { 1.0 } else { 0.0 }));
            }
        }
        WinTable { p }
    }
}

/// One engine's table, known by its rules and tower (weak references: an
/// allocation is not reused while one points at it, so a dropped engine's
/// entry can never be mistaken for a new engine's).
struct Entry {
    rules: Weak<Rules>,
    tower: Weak<dyn TowerModel>,
    table: Rc<WinTable>,
}

thread_local! {
    static TABLES: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// The win table of `engine`'s rules and tower, simulated on first use.
pub(crate) fn win_table(engine: &Engine) -> Rc<WinTable> {
    let tower = engine.tower();
    // Known by address: an entry's weak references keep its allocations,
    // so a live engine's rules and tower never share an address with a
    // dropped engine's (such entries are cleared when a table is added).
    let (rules, at) = (Rc::as_ptr(&engine.rules), Rc::as_ptr(&tower));
    let found = TABLES.with_borrow(|tables| {
        tables.iter().find(|e| std::ptr::eq(e.rules.as_ptr(), rules) && std::ptr::addr_eq(e.tower.as_ptr(), at)).map(|e| e.table.clone())
    });
    if let Some(t) = found {
        return t;
    }
    let table = Rc::new(WinTable::simulate(engine));
    TABLES.with_borrow_mut(|tables| {
        tables.retain(|e| e.rules.strong_count() > 0 && e.tower.strong_count() > 0);
        tables.push(Entry { rules: Rc::downgrade(&engine.rules), tower: Rc::downgrade(&tower), table: table.clone() });
    });
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table whose cells are all different (their index).
    fn numbered() -> WinTable {
        WinTable { p: (0..MAX_ATTACK * (MAX_DEFEND + 1)).map(|i| i as f64).collect() }
    }

    /// Inside the table the cell is read directly; that must be the cell
    /// the scaling finds there, for every ask, or bots decide otherwise.
    #[test]
    fn reading_a_cell_directly_is_what_scaling_finds() {
        let t = numbered();
        for a in 1..=MAX_ATTACK as i64 + 3 {
            for d in -2..=MAX_DEFEND as i64 + 3 {
                assert_eq!(t.win(a, d).to_bits(), t.scaled(a, d).to_bits(), "attack {a}, defend {d}");
            }
        }
        assert_eq!(t.win(0, 3), 0.0);
        assert_eq!(t.win(-1, 0), 0.0);
    }

    /// One table per engine: found again for the same engine, simulated
    /// anew for another one, also after the first is dropped.
    #[test]
    fn each_engine_has_its_own_table_found_again() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let engine = || Engine::new(crate::rules::load(&root.join("scripts/base"), &root.join("maps/sun.yaml")).expect("rules")).expect("engine");
        let (first, second) = (engine(), engine());
        let t = win_table(&first);
        assert!(Rc::ptr_eq(&t, &win_table(&first)));
        assert!(!Rc::ptr_eq(&t, &win_table(&second)));
        drop(first);
        let third = engine();
        let t3 = win_table(&third);
        assert!(!Rc::ptr_eq(&t, &t3) && Rc::ptr_eq(&t3, &win_table(&third)));
        assert!(Rc::ptr_eq(&win_table(&second), &win_table(&second)));
    }
}
