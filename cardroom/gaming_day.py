"""The cardroom's business calendar: gaming days and shifts.

A gaming day starts at a configured local time (06:00 in America/Los_Angeles by
default), so a round dealt at 02:00 belongs to the previous calendar day's gaming day.
Times are stored in UTC; gaming days and shifts are computed in the cardroom's zone.
"""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class Calendar:
    zone: str
    day_start: time
    shifts: tuple[tuple[str, time], ...]

    def local(self, moment: datetime) -> datetime:
        return moment.astimezone(ZoneInfo(self.zone))

    def gaming_day(self, moment: datetime) -> date:
        local = self.local(moment)
        return local.date() - timedelta(days=1) if local.time() < self.day_start else local.date()

    def shift(self, moment: datetime) -> str:
        """The shift whose start is the latest one not after the local time; before the
        first start of the day, the last shift (it runs over midnight)."""
        clock = self.local(moment).time()
        ordered = sorted(self.shifts, key=lambda s: s[1])
        started = [name for name, start in ordered if start <= clock]
        return started[-1] if started else ordered[-1][0]

    def day_bounds(self, day: date) -> tuple[datetime, datetime]:
        """The UTC-aware [start, end) of a gaming day (23 or 25 hours on DST changes)."""
        zone = ZoneInfo(self.zone)
        start = datetime.combine(day, self.day_start, tzinfo=zone)
        end = datetime.combine(day + timedelta(days=1), self.day_start, tzinfo=zone)
        return start, end

    def shift_names(self) -> list[str]:
        """The shifts in the order they run through a gaming day."""
        return [name for name, _ in sorted(self.shifts, key=lambda s: (s[1] < self.day_start, s[1]))]

    def shift_bounds(self, day: date, shift: str) -> tuple[datetime, datetime]:
        """The UTC-aware [start, end) of a shift of a gaming day: from its start to the next
        shift's (the last one ends with the gaming day). A shift starting before the
        gaming day's start time runs on the next calendar day."""
        zone, starts = ZoneInfo(self.zone), dict(self.shifts)
        if shift not in starts:
            raise ValueError(f"unknown shift {shift!r}")

        def start_of(name: str) -> datetime:
            clock = starts[name]
            return datetime.combine(day + timedelta(days=1) if clock < self.day_start else day, clock, tzinfo=zone)

        names = self.shift_names()
        position = names.index(shift)
        end = start_of(names[position + 1]) if position + 1 < len(names) else self.day_bounds(day)[1]
        return start_of(shift), end

    def previous_shift(self, moment: datetime) -> tuple[date, str]:
        """The gaming day and shift that ended last before `moment`: the one running just
        before the current shift started (the count team counts it next)."""
        started = self.shift_bounds(self.gaming_day(moment), self.shift(moment))[0]
        before = started - timedelta(microseconds=1)
        return self.gaming_day(before), self.shift(before)


def _parse(clock: str) -> time:
    hours, minutes = clock.split(":")
    return time(int(hours), int(minutes))


def calendar() -> Calendar:
    """The calendar configured in settings (CARDROOM_GAMING_DAY_START, CARDROOM_SHIFTS)."""
    from django.conf import settings

    return Calendar(
        zone=settings.TIME_ZONE,
        day_start=_parse(settings.CARDROOM_GAMING_DAY_START),
        shifts=tuple((name, _parse(start)) for name, start in settings.CARDROOM_SHIFTS),
    )
