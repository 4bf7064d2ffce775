use serde::{Deserialize, Serialize};

use super::MAX_SEATS;
use super::data::AskData;
use super::rng::{Stage, Streams};

/// A seat at the table: 0-based here, 1-based in Lua, in messages and
/// in text (`Display`). Scripts get and give seats through the one
/// conversion in `script/ids.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seat(u8);

impl Seat {
    /// The seat at `index` (0-based); below MAX_SEATS.
    #[inline]
    pub const fn new(index: usize) -> Seat {
        debug_assert!(index < MAX_SEATS, "a seat index is below MAX_SEATS");
        Seat(index as u8)
    }
    /// Its position in per-seat lists (0-based).
    #[inline]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
    /// The seats of a game of `n` players, in order.
    pub fn all(n: usize) -> impl Iterator<Item = Seat> {
        (0..n).map(Seat::new)
    }
    /// The number scripts, messages and people use: 1 for the first seat.
    pub fn number(self) -> i64 {
        i64::from(self.0) + 1
    }
    /// The seat numbered `n` (from 1) in a game of `seats` players.
    pub fn from_number(n: i64, seats: usize) -> Option<Seat> {
        (n >= 1 && n <= seats.min(MAX_SEATS) as i64).then(|| Seat((n - 1) as u8))
    }
}

impl std::fmt::Display for Seat {
    /// The seat's number from 1 (names and colours come from the rules
    /// pack: `play::notation`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// A province: an index into the map's provinces (0-based here, 1-based
/// in Lua and `Display`; names come from the map).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProvinceId(u16);

impl ProvinceId {
    #[inline]
    pub fn new(index: usize) -> ProvinceId {
        debug_assert!(index <= usize::from(u16::MAX), "province index {index}");
        ProvinceId(index as u16)
    }
    /// Its position in the map's and the state's province lists (0-based).
    #[inline]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
    /// The number scripts use: 1 for the map's first province.
    pub fn number(self) -> i64 {
        i64::from(self.0) + 1
    }
    /// The province numbered `n` (from 1) on a map of `provinces`.
    pub fn from_number(n: i64, provinces: usize) -> Option<ProvinceId> {
        (n >= 1 && n <= provinces.min(usize::from(u16::MAX) + 1) as i64).then(|| ProvinceId((n - 1) as u16))
    }
}

impl std::fmt::Display for ProvinceId {
    /// The province's number from 1 (its name is the map's: `play::notation`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// Cubes by colour: one count per seat, and the green peasants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pile {
    pub seats: [u16; MAX_SEATS],
    pub peasants: u16,
}

impl Pile {
    pub fn total(&self) -> u32 {
        self.seats.iter().map(|&c| u32::from(c)).sum::<u32>() + u32::from(self.peasants)
    }
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }
    pub fn add(&mut self, other: &Pile) {
        for (a, b) in self.seats.iter_mut().zip(other.seats.iter()) {
            *a += b;
        }
        self.peasants += other.peasants;
    }
    /// Count of one colour: `Some(seat)` or `None` for peasants.
    pub fn get(&self, colour: Option<usize>) -> u16 {
        match colour {
            Some(s) => self.seats[s],
            None => self.peasants,
        }
    }
    pub fn get_mut(&mut self, colour: Option<usize>) -> &mut u16 {
        match colour {
            Some(s) => &mut self.seats[s],
            None => &mut self.peasants,
        }
    }
}

/// A card a player can put on his player board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Card {
    /// A province card (index into the map's provinces).
    Province(ProvinceId),
    /// A war-chest card, by its face value.
    Chest(u8),
}

/// A secret plan: a card (or nothing) on each action space, and the bid.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// One entry per action card, in the order of the rules pack's actions.
    pub slots: Vec<Option<Card>>,
    pub bid: Option<Card>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProvinceState {
    /// The seat holding the province card; `None` = neutral (card in the deck).
    pub owner: Option<Seat>,
    pub armies: u16,
    pub unrest: u16,
    /// Bit k set = a building of kind k stands here.
    pub buildings: u8,
}

impl ProvinceState {
    pub fn has(&self, kind: usize) -> bool {
        self.buildings & (1 << kind) != 0
    }
    pub fn building_count(&self) -> u32 {
        self.buildings.count_ones()
    }
}

#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerState {
    /// Cubes in the player's supply (not on the board, not in the tower).
    pub supply: u16,
    pub chests: i64,
    pub rice: i64,
    pub points: i64,
    /// The plan while it is secret and while it is executed.
    pub plan: Option<Plan>,
    /// The bid once revealed (for views and the transcript).
    pub revealed_bid: Option<Card>,
    /// Turn-order space taken this round (index into `special_row`).
    pub space: Option<u8>,
}

/// A choice offered inside an action or a phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Choice {
    Province(ProvinceId),
    Count(u32),
    /// A turn-order space (0-based).
    Space(u8),
    /// Decline (stay, do nothing more).
    Pass,
    /// Draft: take the top card of the hidden deck.
    Deck,
    /// Draft: discard both open cards and turn up two new ones.
    Redraw,
}

/// A question's kind or continuation name, shared rather than copied:
/// the runtime keeps one of each name it has seen and every question
/// asked with it holds that one. Reads, compares, prints and saves as
/// the string it is.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(std::sync::Arc<str>);

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(s.into())
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(s.into())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        String::deserialize(d).map(Name::from)
    }
}

/// A question a script (or the phase machine) put to a seat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    pub seat: Seat,
    /// What is being chosen, for bots and people (e.g. `attack_target`).
    pub kind: Name,
    pub prompt: String,
    pub options: Vec<Choice>,
    /// The Lua continuation that receives the choice.
    pub cont: Name,
    /// Data the script passes to its continuation.
    pub data: AskData,
    /// Questions asked before this one in the same action (continuations
    /// that asked again), bounded by the rules' `limits`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub asked_before: u32,
    /// The action being carried out when the question was asked (none in
    /// the phases: winter, scoring): its continuation gets its province
    /// and card after the data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ActionContext>,
}

/// The action a question was asked in: the province it is carried out in
/// and its action card (an index into the rules' action cards).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionContext {
    pub province: ProvinceId,
    pub action: usize,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// How the starting provinces are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SetupMode {
    /// The map's printed starting positions.
    Preset,
    /// Players pick province cards and place their army groups in turn.
    Draft,
}

/// The draft of starting provinces in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draft {
    /// Face-down province cards, top first.
    pub deck: Vec<ProvinceId>,
    /// The face-up cards to choose from.
    pub open: Vec<ProvinceId>,
    /// Each seat's army groups not yet placed.
    pub groups: Vec<Vec<u16>>,
    /// The seat picking now.
    pub turn: Seat,
    /// The card taken in this pick, waiting for a group.
    pub card: Option<ProvinceId>,
    /// The open cards each seat faced at its previous pick.
    pub faced: Vec<Option<Vec<ProvinceId>>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Chance: place starting armies (preset) or shuffle the province cards
    /// (draft); with presets, also load the tower and shuffle the events.
    Setup,
    /// Seats pick province cards and place army groups.
    Draft,
    /// Chance: load the tower and shuffle the events (after a draft).
    Preload,
    /// Chance: turn up the year's events.
    YearStart,
    /// Chance: shuffle and lay out the action and special cards.
    RoundStart,
    /// All seats plan and bid, secretly and at once.
    Planning,
    /// Chance: draw the event, reveal the bids, rank the bidders.
    Reveal,
    /// Seats choose a turn-order space, in bid order.
    ChooseSpace {
        idx: u8,
    },
    /// Action card `card` (position in the row) for the `turn`-th seat.
    Actions {
        card: u8,
        turn: u8,
    },
    /// Chance: winter supply and the draw of revolting provinces.
    Winter,
    /// Scoring and the end of the year.
    Score,
    GameOver,
}

/// The whole game: everything needed to continue it, and nothing else.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    pub players: Vec<PlayerState>,
    pub provinces: Vec<ProvinceState>,
    pub in_play: Vec<bool>,
    pub year: u8,
    pub season: u8,
    pub phase: Phase,
    /// Peasants in the general supply.
    pub peasants: u16,
    /// Buildings in the supply, by kind.
    pub buildings: Vec<u16>,
    /// Unrest markers in the supply.
    pub unrest: u16,
    /// Cubes stuck inside the tower, level by level.
    pub tower: Vec<Pile>,
    /// Cubes lying in the tray.
    pub tray: Pile,
    /// Outcomes forced on the next throws (front first): exactly these
    /// cubes land, whatever the tower model would do. For rule tests and
    /// "what if" questions.
    #[serde(default)]
    pub forced_throws: Vec<Pile>,
    /// Events not yet turned up (face down, in order).
    pub event_deck: Vec<u8>,
    /// The year's face-up events not yet used.
    pub year_events: Vec<u8>,
    /// The event of the current round.
    pub event: Option<u8>,
    /// The action cards in the order they are executed this round.
    pub action_row: Vec<u8>,
    /// How many of `action_row` are face up.
    pub actions_revealed: u8,
    /// The special card on each turn-order space this round (`None` once out).
    pub special_row: Vec<Option<u8>>,
    /// Seats in the order they choose a turn-order space.
    pub choose_order: Vec<Seat>,
    /// Seats in turn order (autumn's order also governs winter).
    pub turn_order: Vec<Seat>,
    /// A question waiting for a seat's answer.
    pub ask: Option<Ask>,
    pub setup: SetupMode,
    /// The draft, while it runs.
    #[serde(default)]
    pub draft: Option<Draft>,
    /// The random streams (seed and draw counts; core/rng.rs).
    pub streams: Streams,
    /// Decisions applied so far (bounded by the rules' `limits`).
    #[serde(default)]
    pub decisions: u32,
    /// Whose view this state is (`GameState::view`, core/view.rs): `None`
    /// for the game itself (the god view, what saves keep). A seat's view
    /// holds the tower's contents, not its levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen_by: Option<Seat>,
}

impl GameState {
    pub fn seats(&self) -> usize {
        self.players.len()
    }

    /// Where in the game the next draws happen (the key of the random
    /// streams, core/rng.rs): the setup, a round, a seat's turn at an
    /// action card (while it and its questions run), the winter.
    pub fn stage(&self) -> Stage {
        match self.phase {
            Phase::Setup | Phase::Draft | Phase::Preload => Stage::setup(),
            Phase::Winter | Phase::Score | Phase::GameOver => Stage::winter(self.year),
            // The machine moves `turn` on before it calls the action.
            Phase::Actions { card, turn } if turn > 0 => match (self.action_row.get(card as usize), self.turn_order.get(turn as usize - 1)) {
                (Some(&action), Some(seat)) => Stage::action(self.year, self.season, action, seat.index()),
                _ => Stage::round(self.year, self.season),
            },
            _ => Stage::round(self.year, self.season),
        }
    }

    /// The special card a seat holds this round.
    pub fn special_of(&self, seat: Seat) -> Option<u8> {
        let space = self.players[seat.index()].space?;
        self.special_row.get(space as usize).copied().flatten()
    }

    /// How many action spaces of `seat`'s plan hold province `p`'s card,
    /// and how many of those actions are still to be carried out this
    /// round: not yet face up (`face_up`: their card later in the row, or
    /// the current card with the seat's turn still to come).
    pub fn planned_with(&self, seat: Seat, p: ProvinceId) -> (usize, usize) {
        let Some(plan) = &self.players[seat.index()].plan else { return (0, 0) };
        let spaces: Vec<usize> = plan.slots.iter().enumerate().filter(|(_, c)| **c == Some(Card::Province(p))).map(|(a, _)| a).collect();
        let now = (self.year, self.season);
        let pending = spaces.iter().filter(|&&a| !self.face_up(now, seat, Some(a))).count();
        (spaces.len(), pending)
    }

    /// Voids the actions `seat` planned with province `p`'s card (the card
    /// left its hands): those action spaces are empty from now on.
    pub fn void_planned(&mut self, seat: Seat, p: ProvinceId) {
        if let Some(plan) = &mut self.players[seat.index()].plan {
            for slot in plan.slots.iter_mut().filter(|s| **s == Some(Card::Province(p))) {
                *slot = None;
            }
        }
    }

    pub fn provinces_of(&self, seat: Seat) -> impl Iterator<Item = ProvinceId> + '_ {
        self.provinces.iter().enumerate().filter(move |(_, p)| p.owner == Some(seat)).map(|(i, _)| ProvinceId::new(i))
    }

    /// Where each of a seat's cubes is: supply + board + tower + tray.
    pub fn cubes_of(&self, seat: Seat) -> u32 {
        let board: u32 = self.provinces.iter().filter(|p| p.owner == Some(seat)).map(|p| u32::from(p.armies)).sum();
        let tower: u32 = self.tower.iter().map(|l| u32::from(l.seats[seat.index()])).sum();
        u32::from(self.players[seat.index()].supply) + board + tower + u32::from(self.tray.seats[seat.index()])
    }

    pub fn peasants_total(&self) -> u32 {
        u32::from(self.peasants) + self.tower.iter().map(|l| u32::from(l.peasants)).sum::<u32>() + u32::from(self.tray.peasants)
    }

    /// The cubes inside the tower by colour, whatever their level: what
    /// every seat knows of the tower (every throw in and out is seen).
    pub fn tower_contents(&self) -> Pile {
        let mut all = Pile::default();
        self.tower.iter().for_each(|l| all.add(l));
        all
    }
}

/// What a seat's hand and bid depend on: the provinces (public) and a
/// seat's war chests. Both a state and a seat's view have them, so the
/// planning helpers (`Engine::hand`, `unplaced`, `can_bid`, `fill_skips`)
/// work on either without copying a redacted state.
pub trait Holdings {
    fn province_states(&self) -> &[ProvinceState];
    fn chests_of(&self, seat: Seat) -> i64;
    /// The provinces `seat` holds.
    fn held_by(&self, seat: Seat) -> impl Iterator<Item = ProvinceId> + '_ {
        self.province_states().iter().enumerate().filter(move |(_, p)| p.owner == Some(seat)).map(|(i, _)| ProvinceId::new(i))
    }
}

impl Holdings for GameState {
    fn province_states(&self) -> &[ProvinceState] {
        &self.provinces
    }
    fn chests_of(&self, seat: Seat) -> i64 {
        self.players[seat.index()].chests
    }
}

impl<T: Holdings + ?Sized> Holdings for &T {
    fn province_states(&self) -> &[ProvinceState] {
        (**self).province_states()
    }
    fn chests_of(&self, seat: Seat) -> i64 {
        (**self).chests_of(seat)
    }
}

/// Who must act now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Actor {
    Seat(Seat),
    /// These seats decide at once and in secret (planning).
    Simultaneous(Vec<Seat>),
    /// Chance decides (shuffles, draws: the state's random streams).
    Chance,
    Terminal,
}

/// What the actor may decide.
#[derive(Clone, Debug, PartialEq)]
pub enum Legal {
    None,
    Chance,
    /// Any valid plan for one of these seats (see `Engine::check_plan`).
    Plan {
        seats: Vec<Seat>,
    },
    Choose {
        seat: Seat,
        kind: String,
        prompt: String,
        options: Vec<Choice>,
    },
}

/// The only way the game moves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    Chance,
    Plan { seat: Seat, plan: Plan },
    Choose { seat: Seat, choice: Choice },
}

/// What happened, for transcripts and statistics. Not part of the state:
/// `apply` returns the events it caused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Event {
    /// A heading line (round, phase).
    Heading(String),
    /// A line of narration.
    Note(String),
    /// A line of narration only `seat` may read (and the god view): what
    /// a seat's secret plan holds, before its cards are turned face up.
    Secret { seat: Seat, text: String },
    /// A throw into the tower: the cubes thrown in, the tray's cubes thrown
    /// again with them, and what landed in the tray.
    Throw { thrown: Pile, rethrown: Pile, landed: Pile },
    /// A battle was fought (`kind`: the script's word, e.g. `attack`,
    /// `neutral`, `revolt`).
    Battle { kind: String, province: ProvinceId },
    /// The engine turns to a seat's province card on an action card
    /// (`action`: its index in the rules' action cards); the rules then
    /// carry the action out or skip it (the base pack tallies a skip as
    /// `skipped.REASON` for the seat, which `shogun lab` reads).
    Action { seat: Seat, action: u8, province: ProvinceId },
    /// A province card changed hands (`None`: the deck).
    OwnerChange { province: ProvinceId, from: Option<Seat>, to: Option<Seat> },
    /// A count for statistics (`shogun lab`): the rules add `amount` to the
    /// metric `key` (dotted words, e.g. `points.buildings` or
    /// `battles.attack.defender`), for one seat or for the whole game.
    Tally { key: String, seat: Option<Seat>, amount: i64 },
}

impl GameState {
    /// Bytes this state occupies in memory (struct plus heap buffers).
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        let plans: usize = self.players.iter().filter_map(|p| p.plan.as_ref()).map(|p| p.slots.capacity() * size_of::<Option<Card>>()).sum();
        size_of::<GameState>()
            + self.players.capacity() * size_of::<PlayerState>()
            + plans
            + self.provinces.capacity() * size_of::<ProvinceState>()
            + self.in_play.capacity()
            + self.buildings.capacity() * 2
            + self.tower.capacity() * size_of::<Pile>()
            + self.event_deck.capacity()
            + self.year_events.capacity()
            + self.action_row.capacity()
            + self.special_row.capacity() * 2
            + self.choose_order.capacity()
            + self.turn_order.capacity()
            + self
                .ask
                .as_ref()
                .map(|a| size_of::<Ask>() + a.options.capacity() * size_of::<Choice>() + a.prompt.capacity() + a.kind.len() + a.cont.len())
                .unwrap_or(0)
    }
}

// Clone by hand for the three types a decision copies, so that `clone_from`
// reuses their buffers (`Engine::apply` copies into a spare state). The
// exhaustive destructuring makes a new field a compile error here.

impl Clone for Plan {
    fn clone(&self) -> Self {
        Plan { slots: self.slots.clone(), bid: self.bid }
    }
    fn clone_from(&mut self, source: &Self) {
        let Plan { slots, bid } = source;
        self.slots.clone_from(slots);
        self.bid = *bid;
    }
}

impl Clone for PlayerState {
    fn clone(&self) -> Self {
        let PlayerState { supply, chests, rice, points, plan, revealed_bid, space } = self;
        PlayerState { supply: *supply, chests: *chests, rice: *rice, points: *points, plan: plan.clone(), revealed_bid: *revealed_bid, space: *space }
    }
    fn clone_from(&mut self, source: &Self) {
        let PlayerState { supply, chests, rice, points, plan, revealed_bid, space } = source;
        self.supply = *supply;
        self.chests = *chests;
        self.rice = *rice;
        self.points = *points;
        self.plan.clone_from(plan);
        self.revealed_bid = *revealed_bid;
        self.space = *space;
    }
}

impl Clone for GameState {
    fn clone(&self) -> Self {
        let GameState {
            players,
            provinces,
            in_play,
            year,
            season,
            phase,
            peasants,
            buildings,
            unrest,
            tower,
            tray,
            forced_throws,
            event_deck,
            year_events,
            event,
            action_row,
            actions_revealed,
            special_row,
            choose_order,
            turn_order,
            ask,
            setup,
            draft,
            streams,
            decisions,
            seen_by,
        } = self;
        GameState {
            players: players.clone(),
            provinces: provinces.clone(),
            in_play: in_play.clone(),
            year: *year,
            season: *season,
            phase: *phase,
            peasants: *peasants,
            buildings: buildings.clone(),
            unrest: *unrest,
            tower: tower.clone(),
            tray: *tray,
            forced_throws: forced_throws.clone(),
            event_deck: event_deck.clone(),
            year_events: year_events.clone(),
            event: *event,
            action_row: action_row.clone(),
            actions_revealed: *actions_revealed,
            special_row: special_row.clone(),
            choose_order: choose_order.clone(),
            turn_order: turn_order.clone(),
            ask: ask.clone(),
            setup: *setup,
            draft: draft.clone(),
            streams: streams.clone(),
            decisions: *decisions,
            seen_by: *seen_by,
        }
    }
    fn clone_from(&mut self, source: &Self) {
        let GameState {
            players,
            provinces,
            in_play,
            year,
            season,
            phase,
            peasants,
            buildings,
            unrest,
            tower,
            tray,
            forced_throws,
            event_deck,
            year_events,
            event,
            action_row,
            actions_revealed,
            special_row,
            choose_order,
            turn_order,
            ask,
            setup,
            draft,
            streams,
            decisions,
            seen_by,
        } = source;
        self.players.clone_from(players);
        self.provinces.clone_from(provinces);
        self.in_play.clone_from(in_play);
        self.year = *year;
        self.season = *season;
        self.phase = *phase;
        self.peasants = *peasants;
        self.buildings.clone_from(buildings);
        self.unrest = *unrest;
        self.tower.clone_from(tower);
        self.tray = *tray;
        self.forced_throws.clone_from(forced_throws);
        self.event_deck.clone_from(event_deck);
        self.year_events.clone_from(year_events);
        self.event = *event;
        self.action_row.clone_from(action_row);
        self.actions_revealed = *actions_revealed;
        self.special_row.clone_from(special_row);
        self.choose_order.clone_from(choose_order);
        self.turn_order.clone_from(turn_order);
        self.ask.clone_from(ask);
        self.setup = *setup;
        self.draft.clone_from(draft);
        self.streams.clone_from(streams);
        self.decisions = *decisions;
        self.seen_by = *seen_by;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_and_province_numbers_are_one_based_and_inverse() {
        for n in 1..=4 {
            let s = Seat::from_number(n, 4).unwrap();
            assert_eq!((s.index() as i64 + 1, s.number(), s.to_string()), (n, n, n.to_string()));
        }
        assert_eq!(Seat::from_number(0, 4), None);
        assert_eq!(Seat::from_number(5, 4), None);
        assert_eq!(Seat::from_number(MAX_SEATS as i64 + 1, 100), None, "never past the fixed per-seat arrays");
        assert_eq!(ProvinceId::from_number(1, 3), Some(ProvinceId::new(0)));
        assert_eq!(ProvinceId::from_number(4, 3), None);
        assert_eq!(ProvinceId::from_number(-1, 3), None);
        assert_eq!(ProvinceId::new(2).number(), 3);
        // Saved games keep the plain numbers.
        assert_eq!(serde_json::to_string(&(Seat::new(2), ProvinceId::new(7))).unwrap(), "[2,7]");
    }
}
