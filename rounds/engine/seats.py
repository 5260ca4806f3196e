"""Seats around the table: numbered 1 to N clockwise, N followed by 1."""


def clockwise_after(seat: int, seat_count: int) -> list[int]:
    """Every seat clockwise from the one after `seat` (wrapping N -> 1), `seat` itself last."""
    return [(seat + k - 1) % seat_count + 1 for k in range(1, seat_count + 1)]
