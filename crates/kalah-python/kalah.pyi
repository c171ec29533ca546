"""Type stubs of the kalah module (crates/kalah-python/src/lib.rs; guide: docs/PYTHON.md).

Actions are house numbers (int, 1..m in the mover's sowing order, 1 = farthest from its store)
or "swap" (pie rule); whole turns are text ("3-6"). Values are final store differences, side to
move minus opponent, with perfect play.
"""

from typing import List, Optional, Tuple, Union

__version__: str

Action = Union[int, str]
RulesLike = Union["Rules", str, None]

class IllegalMoveError(ValueError):
    """An action or a turn that cannot be played in the position."""

class SearchStopped(Exception):
    """A search stopped by its time or node limit before it finished.

    lower and upper bound the value (equal when the value was proven but the best turns, or the
    other actions' values, were not finished); nodes is the work done.
    """

    lower: int
    upper: int
    nodes: int

class Rules:
    """Capture rule, end rule, leftovers, majority end, pie rule, first-move extra turn."""

    def __init__(
        self,
        text: Optional[str] = None,
        *,
        capture: Optional[str] = None,
        end: Optional[str] = None,
        leftovers: Optional[str] = None,
        majority_end: Optional[bool] = None,
        pie: Optional[bool] = None,
        first_move_extra_turn: Optional[bool] = None,
    ) -> None: ...
    @property
    def capture(self) -> str: ...
    @property
    def end(self) -> str: ...
    @property
    def leftovers(self) -> str: ...
    @property
    def majority_end(self) -> bool: ...
    @property
    def pie(self) -> bool: ...
    @property
    def first_move_extra_turn(self) -> bool: ...

class Outcome:
    """What one action did."""

    sown: int
    extra_turn: bool
    captured: int
    swapped: bool
    ended: Optional[str]

class Position:
    """A position and its rules; immutable, hashable, picklable."""

    def __init__(self, text: str, rules: RulesLike = None) -> None: ...
    @staticmethod
    def start(
        houses: int = 6,
        seeds: int = 4,
        rules: RulesLike = None,
        *,
        layout: Optional[List[int]] = None,
        mirrored: bool = False,
    ) -> "Position": ...
    @property
    def rules(self) -> Rules: ...
    @property
    def houses(self) -> int: ...
    @property
    def bins(self) -> List[int]: ...
    @property
    def seeds(self) -> int: ...
    @property
    def to_move(self) -> Optional[str]: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def score(self) -> Optional[Tuple[int, int]]: ...
    def row(self, side: str) -> List[int]: ...
    def store(self, side: str) -> int: ...
    def legal_moves(self) -> List[Action]: ...
    def play(self, action: Action) -> "Position": ...
    def step(self, action: Action) -> Tuple["Position", Outcome]: ...
    def play_turn(self, turn: str) -> "Position": ...
    def turns(self) -> List[Tuple[str, "Position"]]: ...
    def flipped(self) -> "Position": ...

class Egdb:
    """Endgame databases of one board size and rule set (kalah egdb build)."""

    def __init__(self, dir: Optional[str] = None, houses: int = 6, rules: RulesLike = None) -> None: ...
    @staticmethod
    def build(
        dir: Optional[str] = None,
        houses: int = 6,
        max_seeds: int = 16,
        rules: RulesLike = None,
        *,
        threads: Optional[int] = None,
    ) -> "Egdb": ...
    @property
    def houses(self) -> int: ...
    @property
    def max_seeds(self) -> int: ...
    @property
    def dir(self) -> str: ...
    def probe(self, position: Position) -> Optional[int]: ...

class Solution:
    """The exact solution of a position."""

    value: int
    best: List[str]
    pv: List[str]
    nodes: int
    tt_hits: int
    seconds: float

class SearchResult:
    """A depth-limited search's result."""

    value: int
    exact: bool
    best: Optional[Action]
    pv: List[str]
    depth: int
    nodes: int

class Choice:
    """The engine's choice of one action."""

    action: Action
    value: Optional[int]
    exact: bool
    depth: int
    nodes: int
    pv: List[str]

class Engine:
    """A player at a level: beginner, easy, medium, hard, expert, perfect."""

    def __init__(
        self,
        level: str = "perfect",
        *,
        seed: Optional[int] = None,
        threads: int = 1,
        table_mib: Optional[int] = None,
        egdb: Optional[Egdb] = None,
    ) -> None: ...
    @property
    def level(self) -> str: ...
    def choose(
        self,
        position: Position,
        *,
        time_limit: Optional[float] = None,
        node_limit: Optional[int] = None,
    ) -> Optional[Choice]: ...
    def hint(
        self,
        position: Position,
        *,
        time_limit: Optional[float] = None,
        node_limit: Optional[int] = None,
    ) -> List[Tuple[Action, int, bool]]: ...

class GameRecord:
    """A game: rules, start, players, tags and every action."""

    def __init__(self, start: Position) -> None: ...
    @staticmethod
    def parse(text: str) -> "GameRecord": ...
    @property
    def rules(self) -> Rules: ...
    @property
    def start(self) -> Position: ...
    @property
    def south(self) -> str: ...
    @property
    def north(self) -> str: ...
    @property
    def tags(self) -> List[Tuple[str, str]]: ...
    @property
    def moves(self) -> List[Action]: ...
    @property
    def turns(self) -> List[str]: ...
    @property
    def position(self) -> Position: ...
    @property
    def result(self) -> Optional[Tuple[int, int]]: ...
    def positions(self) -> List[Position]: ...
    def push(self, action: Action) -> None: ...
    def pop(self) -> Optional[Action]: ...
    def to_text(self) -> str: ...
    def to_json(self) -> str: ...
    def __len__(self) -> int: ...

def solve(
    position: Position,
    *,
    threads: int = 1,
    table_mib: Optional[int] = None,
    time_limit: Optional[float] = None,
    node_limit: Optional[int] = None,
    egdb: Optional[Egdb] = None,
) -> Solution: ...
def analyze(
    position: Position,
    *,
    turns: bool = False,
    threads: int = 1,
    table_mib: Optional[int] = None,
    time_limit: Optional[float] = None,
    node_limit: Optional[int] = None,
    egdb: Optional[Egdb] = None,
) -> List[Tuple[Action, int]]: ...
def search(
    position: Position, depth: int, *, table_mib: Optional[int] = None, egdb: Optional[Egdb] = None
) -> SearchResult: ...
def perft(position: Position, depth: int) -> int: ...
