"""The composition root: settings, URLs and ASGI, which wire the apps together. Nothing
imports it but itself (.importlinter)."""
