"""What the back office tells the layers above it, without importing them.

The back office sits below the tables app (the command service and the live screens):
it may not import it. When something it records changes what a table's screens show,
it sends one of these signals inside its transaction; the tables app subscribes
(tables/receivers.py) and publishes once the transaction commits.
"""

from django.dispatch import Signal

# A drop box was placed on (or swapped onto) a table: its floor row shows the box.
# Sent with `table_id`, inside the placement's transaction.
box_placed = Signal()
