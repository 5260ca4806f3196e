"""The table setup screens' forms: one per part of a table's configuration.

A form turns what the supervisor typed (amounts in dollars) into the part of the
configuration it changes (docs/commands.md, `table`: amounts in cents); the engine's
`TableConfig.from_config` then checks the whole configuration (web/staff/setup.py),
and its refusal, with its stable code, is shown as the form's error. The forms check
only what the browser could send wrong (a number that is not one); every rule is the
engine's.
"""

from decimal import Decimal

from django import forms

from rounds.engine import dealing
from rounds.engine.backline import MAX_PER_SEAT as BACKLINE_MAX_PER_SEAT
from rounds.engine.fees import MAX_RATES, PAYERS, PD_BASES, PLAYER_BASES
from rounds.engine.hands import CATEGORIES
from rounds.engine.paytables import STANDARD_BLIND, STANDARD_TRIPS, paytable_from_config
from rounds.engine.policy import DEFAULT_NOTICE
from rounds.engine.sidebets import BAD_BEAT_TABLES, PAIRS_TABLES, PROGRESSIVE_TABLES
from rounds.engine.config import MAX_SEATS, MIN_SEATS
from tables.setup import WORDS


def _cents(value) -> int | None:
    return None if value is None else int((value * 100).to_integral_value())


def _dollars(cents) -> Decimal | None:
    return None if cents is None else Decimal(cents) / 100


def money(label: str, required: bool = False) -> forms.DecimalField:
    return forms.DecimalField(label=label, required=required, min_value=0, max_digits=12, decimal_places=2)


class SetupForm(forms.Form):
    """A part of the configuration. `reason` goes with the request to the queue."""

    section = ""
    title = ""
    reason = forms.CharField(max_length=500, required=False, help_text="why: shown to the supervisor who decides")

    @classmethod
    def initial_from(cls, config: dict) -> dict:
        raise NotImplementedError

    def change(self) -> dict:
        """The configuration keys this form sets (cleaned data to the engine's form)."""
        raise NotImplementedError


class TableCreateForm(forms.Form):
    name = forms.CharField(max_length=64)
    seats = forms.IntegerField(min_value=MIN_SEATS, max_value=MAX_SEATS, initial=6)
    paytable = forms.ChoiceField(choices=[(n, n) for n in STANDARD_TRIPS], initial="UTH-01")


class SeatsForm(SetupForm):
    section, title = "seats", "Seats"
    seats = forms.IntegerField(min_value=1, max_value=99, help_text=f"{MIN_SEATS} to {MAX_SEATS}, the player-dealer's included")

    @classmethod
    def initial_from(cls, config):
        return {"seats": config["seats"]}

    def change(self):
        return {"seats": self.cleaned_data["seats"]}


# The hands a custom pay table may list: down to one below each wager's lowest paying hand,
# so that the threshold rule (game-rules section 6) is the engine's to refuse, by name.
TRIPS_HANDS = tuple(reversed(CATEGORIES[CATEGORIES.index("two_pair"):]))
BLIND_HANDS = tuple(reversed(CATEGORIES[CATEGORIES.index("three_of_a_kind"):]))


class PaytableForm(SetupForm):
    section, title = "paytable", "Pay table"
    paytable = forms.ChoiceField(choices=[*((n, n) for n in STANDARD_TRIPS), ("custom", "custom")])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A custom table's odds, "X to Y"; a hand left empty does not pay.
        for section, hands in (("trips", TRIPS_HANDS), ("blind", BLIND_HANDS)):
            for hand in hands:
                for part in ("x", "y"):
                    self.fields[f"{section}_{hand}_{part}"] = forms.IntegerField(required=False, min_value=0)

    def odds_rows(self):
        """(wager, hand, X field, Y field) for the template's grid."""
        return [
            (label, hand.replace("_", " "), self[f"{section}_{hand}_x"], self[f"{section}_{hand}_y"])
            for label, section, hands in (("Trips", "trips", TRIPS_HANDS), ("Blind", "blind", BLIND_HANDS))
            for hand in hands
        ]

    @classmethod
    def initial_from(cls, config):
        table = paytable_from_config(config["paytable"])
        initial = {"paytable": table.name}
        for section, odds in (("trips", table.trips if table.name == "custom" else STANDARD_TRIPS["UTH-01"]),
                              ("blind", table.blind if table.name == "custom" else STANDARD_BLIND)):
            for hand, (x, y) in odds.items():
                initial[f"{section}_{hand}_x"], initial[f"{section}_{hand}_y"] = x, y
        return initial

    def change(self):
        name = self.cleaned_data["paytable"]
        if name != "custom":
            return {"paytable": name}
        custom = {}
        for section, hands in (("trips", TRIPS_HANDS), ("blind", BLIND_HANDS)):
            rows = {}
            for hand in hands:
                x, y = self.cleaned_data.get(f"{section}_{hand}_x"), self.cleaned_data.get(f"{section}_{hand}_y")
                if x is not None or y is not None:
                    rows[hand] = [x, y]  # a half-filled row goes to the engine, which names it
            custom[section] = rows
        return {"paytable": custom}


class LimitsForm(SetupForm):
    section, title = "limits", "Limits and the dealing procedure"
    ante_min = money("Ante minimum ($)")
    ante_max = money("Ante maximum ($)")
    trips_min = money("Trips minimum ($)")
    trips_max = money("Trips maximum ($)")
    dealing = forms.ChoiceField(choices=[(p, WORDS["dealing"].get(p, p)) for p in dealing.PROCEDURES])

    @classmethod
    def initial_from(cls, config):
        limits = config.get("limits") or {}
        return {**{k: _dollars(limits.get(k)) for k in ("ante_min", "ante_max", "trips_min", "trips_max")},
                "dealing": config["dealing"]}

    def change(self):
        data = self.cleaned_data
        limits = {k: _cents(data[k]) for k in ("ante_min", "ante_max", "trips_min", "trips_max") if data[k] is not None}
        return {"limits": limits, "dealing": data["dealing"]}


class BanksForm(SetupForm):
    section, title = "banks", "Consecutive banks"
    max_consecutive_banks = forms.TypedChoiceField(
        choices=[(1, "1"), (2, "2")], coerce=int, label="A player-dealer may bank this many rounds in a row"
    )

    @classmethod
    def initial_from(cls, config):
        return {"max_consecutive_banks": config["max_consecutive_banks"]}

    def change(self):
        return {"max_consecutive_banks": self.cleaned_data["max_consecutive_banks"]}


def _samples(text: str) -> list[int]:
    try:
        values = [Decimal(part) for part in text.replace("$", "").split(",") if part.strip()]
    except ArithmeticError:
        raise forms.ValidationError("sample Antes are dollar amounts separated by commas") from None
    if not values or len(values) > 10 or any(v <= 0 for v in values):
        raise forms.ValidationError("give 1 to 10 sample Antes above $0")
    return [_cents(v) for v in values]


class FeesForm(SetupForm):
    section, title = "fees", "Fee schedule"
    charged = forms.BooleanField(required=False, label="The table charges collection fees")
    payers = forms.ChoiceField(choices=[(p, WORDS["payers"][p]) for p in PAYERS])
    player_basis = forms.ChoiceField(choices=[(p, WORDS["player_basis"][p]) for p in PLAYER_BASES])
    pd_basis = forms.ChoiceField(choices=[(p, WORDS["pd_basis"][p]) for p in PD_BASES])
    samples = forms.CharField(required=False, label="Sample Antes for the preview ($)", initial="5, 10, 25, 50, 100")
    RATE_FIELDS = ("min", "max", "player_fee", "pd_fee")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for n in range(1, MAX_RATES + 1):
            for f in self.RATE_FIELDS:
                self.fields[f"rate{n}_{f}"] = money(f)

    def rate_rows(self):
        return [(n, [self[f"rate{n}_{f}"] for f in self.RATE_FIELDS]) for n in range(1, MAX_RATES + 1)]

    @classmethod
    def initial_from(cls, config):
        fees = config.get("fee_schedule")
        initial = {"charged": fees is not None, "samples": "5, 10, 25, 50, 100"}
        if fees:
            initial.update({k: fees[k] for k in ("payers", "player_basis", "pd_basis")})
            for n, rate in enumerate(fees["rates"], start=1):
                initial.update({f"rate{n}_{f}": _dollars(rate[f]) for f in cls.RATE_FIELDS})
        return initial

    def clean_samples(self):
        return _samples(self.cleaned_data["samples"] or "5, 10, 25, 50, 100")

    def change(self):
        data = self.cleaned_data
        if not data["charged"]:
            return {"fee_schedule": None}
        rates = []
        for n in range(1, MAX_RATES + 1):
            row = {f: _cents(data[f"rate{n}_{f}"]) for f in self.RATE_FIELDS}
            if any(v is not None for v in row.values()):
                rates.append(row)  # a row left half empty is the engine's to refuse
        return {"fee_schedule": {"payers": data["payers"], "player_basis": data["player_basis"],
                                 "pd_basis": data["pd_basis"], "rates": rates}}


class SideBetsForm(SetupForm):
    section, title = "side_bets", "Side bets"
    bad_beat = forms.BooleanField(required=False, label="Bad Beat offered")
    bad_beat_paytable = forms.ChoiceField(choices=[(n, n) for n in BAD_BEAT_TABLES], label="pay table")
    bad_beat_min = money("minimum ($)")
    bad_beat_max = money("maximum ($)")
    pairs = forms.BooleanField(required=False, label="Pairs offered")
    pairs_paytable = forms.ChoiceField(choices=[(n, n) for n in PAIRS_TABLES], label="pay table")
    pairs_min = money("minimum ($)")
    pairs_max = money("maximum ($)")
    progressive = forms.BooleanField(required=False, label="Progressive offered")
    progressive_paytable = forms.ChoiceField(choices=[(n, n) for n in PROGRESSIVE_TABLES], label="pay table")
    progressive_wager = money("wager ($)")
    meter_name = forms.CharField(required=False, max_length=64, label="meter name (tables naming one meter share it)")
    meter_share = forms.IntegerField(required=False, min_value=0, label="share of each wager to the meter (%)")
    meter_seed = money("seed ($)")
    meter_start = money("meter's starting amount ($)")
    meter_reserve = money("reserve's starting amount ($)")

    @classmethod
    def initial_from(cls, config):
        bets = config.get("side_bets") or {}
        initial = {}
        for name in ("bad_beat", "pairs"):
            bet = bets.get(name)
            initial[name] = bet is not None
            if bet:
                initial.update({f"{name}_paytable": bet["paytable"], f"{name}_min": _dollars(bet.get("min")),
                                f"{name}_max": _dollars(bet.get("max"))})
        prog = bets.get("progressive")
        initial["progressive"] = prog is not None
        if prog:
            meter = prog["meter"]
            initial.update({"progressive_paytable": prog["paytable"], "progressive_wager": _dollars(prog["wager"]),
                            "meter_name": meter["name"], "meter_share": meter["meter_share"],
                            "meter_seed": _dollars(meter["seed"]), "meter_start": _dollars(meter["meter"]),
                            "meter_reserve": _dollars(meter["reserve"])})
        return initial

    def change(self):
        data = self.cleaned_data
        bets = {}
        for name in ("bad_beat", "pairs"):
            if data[name]:
                bet = {"paytable": data[f"{name}_paytable"]}
                bet.update({k: _cents(data[f"{name}_{k}"]) for k in ("min", "max") if data[f"{name}_{k}"] is not None})
                bets[name] = bet
        if data["progressive"]:
            bets["progressive"] = {
                "paytable": data["progressive_paytable"],
                "wager": _cents(data["progressive_wager"]),
                "meter": {"name": data["meter_name"], "meter_share": data["meter_share"],
                          "seed": _cents(data["meter_seed"]), "meter": _cents(data["meter_start"]) or 0,
                          "reserve": _cents(data["meter_reserve"]) or 0},
            }
        return {"side_bets": bets or None}


class RotationForm(SetupForm):
    section, title = "rotation", "Rotation policy and notice"
    policy = forms.BooleanField(required=False, label="Systematic rotation policy (game-rules 2A) in force")
    offer_every_round = forms.BooleanField(required=False, label="offer the bank every round")
    window_minutes = forms.IntegerField(required=False, min_value=0, label="window (minutes)")
    window_players = forms.IntegerField(required=False, min_value=0, label="players who must bank in the window")
    tppp_one_round = forms.BooleanField(required=False, label="a TPPP banks one round at a time")
    notice = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=2000, label="Posted notice")

    @classmethod
    def initial_from(cls, config):
        policy = config.get("rotation_policy")
        return {"policy": policy is not None, **(policy or {"offer_every_round": True, "window_minutes": 40,
                                                            "window_players": 2, "tppp_one_round": True}),
                "notice": config.get("notice") or DEFAULT_NOTICE}

    def change(self):
        data = self.cleaned_data
        policy = None
        if data["policy"]:
            policy = {"offer_every_round": data["offer_every_round"], "tppp_one_round": data["tppp_one_round"],
                      **{k: data[k] for k in ("window_minutes", "window_players") if data[k] is not None}}
        return {"rotation_policy": policy, "notice": data["notice"]}


class BacklineForm(SetupForm):
    """Backline wagers (game-rules section 12): offered or not, how many bettors one seat
    carries, and whether a backline may carry Trips. The engine checks the numbers."""

    section, title = "backline", "Backline"
    offered = forms.BooleanField(required=False, label="Backline wagers offered (game-rules section 12)")
    max_per_seat = forms.IntegerField(required=False, label=f"bettors behind one seat (1 to {BACKLINE_MAX_PER_SEAT})")
    trips = forms.BooleanField(required=False, label="a backline may carry Trips")

    @classmethod
    def initial_from(cls, config):
        backline = config.get("backline")
        return {"offered": backline is not None, "max_per_seat": (backline or {}).get("max_per_seat", 1),
                "trips": bool((backline or {}).get("trips"))}

    def change(self):
        data = self.cleaned_data
        if not data["offered"]:
            return {"backline": None}
        return {"backline": {"max_per_seat": data["max_per_seat"], "trips": data["trips"]}}


# In the order the setup page shows them.
SECTIONS = {form.section: form for form in (SeatsForm, PaytableForm, LimitsForm, BanksForm, FeesForm, SideBetsForm,
                                            BacklineForm, RotationForm)}


class ExpectedWagersForm(forms.Form):
    """What each player bets, for the table's expected results (amounts in dollars; an
    empty Ante is the table's minimum). Not a change of the configuration: a GET."""

    ante = money("Ante (and an equal Blind)")
    trips = money("Trips")
    bad_beat = money("Bad Beat")
    pairs = money("Pairs")

    def wagers(self) -> dict:
        """The asked wagers in cents, as rounds.game_math.wagers_for takes them."""
        data = self.cleaned_data
        return {"ante": _cents(data["ante"]), **{k: _cents(data[k]) or 0 for k in ("trips", "bad_beat", "pairs")}}
