"""pytest plugins for the cardroom test suite (loaded with ``-p`` from pytest.ini)."""
