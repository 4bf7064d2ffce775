//! The rules pack files: `rules.yaml` (numbers) and `cards.yaml` (cards).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// A pack's numbers: the file that makes a folder a pack.
pub const RULES_FILE: &str = "rules.yaml";
/// A pack's cards.
pub const CARDS_FILE: &str = "cards.yaml";

/// Whether a folder is a rules pack: it holds a rules.yaml (the one place
/// that says what makes a folder a pack).
pub fn is_pack(dir: &Path) -> bool {
    dir.join(RULES_FILE).is_file()
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    pub name: String,
    pub description: String,
    pub players: PlayerRange,
    pub seats: Vec<SeatRow>,
    pub starting_chests: BTreeMap<u8, i64>,
    pub army_groups: Vec<i64>,
    pub army_groups_used: BTreeMap<u8, usize>,
    pub draft: DraftRules,
    pub components: Components,
    pub tower: TowerConfig,
    pub towers: BTreeMap<String, TowerSpec>,
    pub calendar: Calendar,
    pub bidding: Bidding,
    pub planning: Planning,
    pub winter: Winter,
    pub scoring: Scoring,
    pub modifier_order: Vec<String>,
    /// Effects always in force (the `variant` stage of the pipeline).
    #[serde(default)]
    pub effects: Vec<Effect>,
    pub handlers: PhaseHandlers,
    /// Bounds on a game, so that rules that never end stop with an error.
    #[serde(default)]
    pub limits: GameLimits,
    pub lua: Vec<String>,
    /// Free-form numbers for scripts (variants add their own here).
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    /// What bots know of these rules (required; optional here only so
    /// that its absence gets a message of its own).
    #[serde(default)]
    pub bots: Option<BotInfo>,
}

impl RulesFile {
    /// What to say after a tower name these rules do not have: the closest
    /// names, then every one (`, did you mean `two-level`? (known: ...)`).
    pub fn towers_for(&self, name: &str) -> String {
        let known: Vec<&str> = self.towers.keys().map(String::as_str).collect();
        format!("{} (known: {})", super::map::suggest(name, self.towers.keys()), known.join(", "))
    }
}

/// What the bots know of the rules: they read nothing else of the pack's
/// handler names and params. Checked at load (`rules::check_bots`).
#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct BotInfo {
    /// Action handler name -> what an action card with that handler does.
    /// Cards whose handler is not listed are played without a plan.
    pub actions: BTreeMap<String, BotAction>,
    /// The param (under `params`) holding the armies a move leaves behind.
    pub armies_left_behind: String,
    /// The param holding the peasants thrown for a neutral province.
    pub neutral_peasants: String,
    /// The questions the pack's scripts ask that bots answer by what they
    /// mean: meaning -> the question's kind.
    pub questions: BotQuestions,
    /// The fields of those questions' data the bots read, as the pack
    /// names them.
    pub question_data: BotQuestionData,
}

/// The kinds of the questions bots answer by what they mean (each one
/// optional: rules that never ask it leave it out). Unlisted kinds get a
/// bot's fallback answer.
#[derive(Deserialize, Serialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct BotQuestions {
    /// Where moving armies go (options: provinces; data: `from`).
    #[serde(default)]
    pub move_target: Option<String>,
    /// How many armies go (options: counts; data: `to`).
    #[serde(default)]
    pub move_count: Option<String>,
    /// Whether a just-deployed army moves on, and where (options:
    /// provinces and pass; data: `from`).
    #[serde(default)]
    pub deploy_move: Option<String>,
    /// How many extra cubes a side throws from its supply (options:
    /// counts, 0 up to what the cards allow; data: `to`, `armies`, and
    /// `attacker_extra` in the defender's question).
    #[serde(default)]
    pub extra_cubes: Option<String>,
}

/// The names of the data fields bots read in the questions above.
#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct BotQuestionData {
    /// The province armies move from (a province number).
    pub from: String,
    /// The province armies move into or attack (a province number).
    pub to: String,
    /// The attacking armies (extra cubes).
    pub armies: String,
    /// The attacker's extra cubes, in the defender's extra-cubes question.
    pub attacker_extra: String,
}

/// What an action does, in the words bots plan with.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BotAction {
    /// Builds the building the card's `params.building` names.
    Build,
    /// Collects war chests from the province.
    Taxes,
    /// Collects rice from the province.
    Rice,
    /// Deploys armies from the supply into the province.
    Deploy,
    /// Deploys armies, which may then move on.
    DeployMove,
    /// Moves armies from the province, attacking where it is not the seat's.
    MoveAttack,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct PlayerRange {
    pub min: u8,
    pub max: u8,
}

impl PlayerRange {
    /// Whether a game of `n` players is one these rules are for.
    pub fn takes(&self, n: u8) -> bool {
        (self.min..=self.max).contains(&n)
    }
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SeatRow {
    pub name: String,
    pub colour: String,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct DraftRules {
    /// Province cards face up to choose from (a redraw turns up as many).
    pub open_cards: i64,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Components {
    pub cubes_per_player: i64,
    pub peasants: i64,
    pub unrest_markers: i64,
    pub chest_cards: Vec<i64>,
    pub buildings: Vec<BuildingKind>,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct BuildingKind {
    pub id: String,
    pub name: String,
    pub count: i64,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct TowerConfig {
    /// Name of the tower in `towers` the game uses.
    #[serde(rename = "use")]
    pub use_: String,
    pub preload: Preload,
}

/// A named tower: a model and its parameters.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TowerSpec {
    pub model: String,
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    /// For `model: lua`: the name the tower was registered under (shogun.tower).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    pub provenance: String,
}

impl TowerSpec {
    /// Whether the tower throws only outcomes forced on it (`scripted`):
    /// it has no chances to simulate, fit or soak.
    pub fn forced_only(&self) -> bool {
        self.model == "scripted"
    }
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct Preload {
    pub cubes_per_player: i64,
    pub peasants: i64,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Calendar {
    pub years: i64,
    pub seasons: Vec<String>,
    pub winter: String,
    pub events_per_year: i64,
    pub open_action_cards: i64,
}

/// Bounds on a game (defaults hold when `limits:` or a key is missing).
#[derive(Deserialize, Serialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields, default)]
pub struct GameLimits {
    /// Questions (`game.ask`) one action or phase handler may chain: a
    /// continuation asking again counts on.
    pub questions_per_action: u32,
    /// Decisions (chance included) a whole game may take.
    pub decisions_per_game: u32,
}

impl Default for GameLimits {
    fn default() -> Self {
        GameLimits { questions_per_action: 100, decisions_per_game: 20_000 }
    }
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct Bidding {
    pub province_bid_rank: f64,
}

/// How the action and bid spaces are filled when planning.
#[derive(Deserialize, Serialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct Planning {
    pub empty_spaces: EmptySpaces,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EmptySpaces {
    /// Every space gets a card from the hand (the bid space first); spaces
    /// stay empty only when the hand has no card left for them.
    OnlyWithoutCards,
    /// Players may leave any space empty.
    Allowed,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Winter {
    pub rice_per_province: i64,
    pub supply_table: Vec<SupplyRow>,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct SupplyRow {
    pub shortage: i64,
    pub revolts: i64,
    pub extra_peasants: i64,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Scoring {
    pub per_province: i64,
    pub per_building: i64,
    pub region_majority: BTreeMap<String, i64>,
    pub tie_step: i64,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct PhaseHandlers {
    pub winter: String,
    pub score: String,
    pub year_end: String,
    /// Pure: (kind, attacker, defender, peasants, unrest) -> outcome,
    /// attacker cubes left, defender cubes left. Used by `shogun tower odds`.
    pub battle: String,
    /// Loads the tower at setup (after the starting armies are placed).
    pub preload: String,
    /// Reveals and pays the bids and sets the order in which the players
    /// choose their turn-order spaces.
    pub bids: String,
    /// Carries out one planned action: (seat, province, action); decides
    /// whether it is void (the province card was lost) and calls the
    /// action's handler.
    pub perform: String,
    /// What becomes of the action a player planned in a province he lost
    /// in battle: (former owner, province, new owner or nil). The engine
    /// never calls it; the pack's battles do, so a variant can change it.
    pub province_lost: String,
    /// Pure: the players' {points, chests} by seat -> each seat's rank
    /// (1 = first; equal ranks for a tie the rules do not break).
    pub standings: String,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct CardsFile {
    pub actions: Vec<ActionCard>,
    pub events: Vec<EventCard>,
    pub specials: Vec<SpecialCard>,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ActionCard {
    pub id: String,
    pub name: String,
    pub handler: String,
    #[serde(default)]
    pub cost: i64,
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct EventCard {
    pub id: String,
    pub name: String,
    pub text: String,
    pub rice_loss: i64,
    #[serde(default)]
    pub effects: Vec<Effect>,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SpecialCard {
    pub id: String,
    pub name: String,
    pub text: String,
    #[serde(default)]
    pub effects: Vec<Effect>,
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Effect {
    pub hook: String,
    pub modifier: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    #[serde(default)]
    pub actions: Vec<String>,
}
