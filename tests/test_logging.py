"""Every module that logs what an operator needs is heard: the sockets moved to web/
(issue 36) keep the INFO lines they had under the tables logger (a channel layer
outage, the groups re-joined), on the same stderr handler."""

import logging


def test_the_sockets_and_the_tables_log_at_info_on_stderr():
    for name in ("web.sockets", "web.tables.consumers", "tables.events", "cardroom.localdb"):
        logger = logging.getLogger(name)
        assert logger.getEffectiveLevel() == logging.INFO, name
        handlers = [h for parent in (logger, logger.parent, logger.parent.parent) if parent for h in parent.handlers]
        assert any(isinstance(h, logging.StreamHandler) for h in handlers), name
