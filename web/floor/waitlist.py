"""The floor's waitlist page (supervisors) and the public lobby board (tables/waitlist.py)."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from cardroom.access import Actor, page_for

from tables import waitlist
from tables.models import Table

# A refused step is answered on the page with its code and this status; nothing changed.
REFUSED_STATUS = 409


def _tppp_of(post) -> dict | None:
    """A TPPP's licence from the add form: all three fields or none (the engine checks them at seating)."""
    fields = {name: post.get(f"tppp_{name}", "").strip() for name in ("badge", "company", "expires")}
    return fields if any(fields.values()) else None


@page_for("supervisor")
def waitlist_page(request):
    """Every game's list, and the forms that add, call, seat and remove. A POST's `action`
    says which; a refusal is shown as `code: message` with status 409."""
    refused = done = None
    if request.method == "POST":
        post, actor = request.POST, Actor.from_request(request)
        try:
            match post.get("action"):
                case "add":
                    waitlist.waitlist_add(game=post.get("game", ""), player=post.get("player"), actor=actor,
                                          tppp=_tppp_of(post))
                    done = f"{post.get('player', '').strip()} added to {post.get('game')}"
                case "call":
                    called = waitlist.waitlist_call_next(game=post.get("game", ""), table_id=post.get("table"), actor=actor)
                    done = f"{called.entry.player} called to {called.table.name}"
                case "seat":
                    seated = waitlist.waitlist_seat(entry_id=post.get("entry"), table_id=post.get("table"),
                                                    seat=_int(post.get("seat")), actor=actor)
                    done = f"{seated.entry.player} seated at {seated.table.name}, seat {seated.seat}"
                case "remove":
                    waitlist.waitlist_remove(entry_id=post.get("entry"), reason=post.get("reason"), actor=actor)
                    done = "removed from the list"
                case _:
                    raise waitlist.WaitlistError("invalid_command", "action is add, call, seat or remove")
        except waitlist.WaitlistError as err:
            refused = err  # the page shows its words; the code rides in an attribute
    tables = list(Table.objects.filter(retired=False).order_by("name", "pk").only("pk", "name", "state", "is_open"))
    entries = waitlist.waiting()
    lists = [
        {
            "game": game,
            "entries": [e for e in entries if e.game == game],
            "tables": [
                {"id": t.pk, "name": t.name, "open": t.is_open, "props_only": waitlist.props_only(t.state),
                 "seated": len(t.state.get("occupants") or {}), "seats": t.state["config"]["seats"]}
                for t in tables if waitlist.game_of(t.state["config"]) == game
            ],
        }
        for game in waitlist.games()
    ]
    return render(request, "tables/waitlist.html", {"lists": lists, "refused": refused, "done": done},
                  status=REFUSED_STATUS if refused else 200)


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return value  # the engine refuses it with its own code


@require_GET
def lobby(request):
    """Public, no login: the games, their open seats and how many wait. No names."""
    return render(request, "tables/lobby.html", {"board": waitlist.lobby_board()})
