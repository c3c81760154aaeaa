"""Create the database table the LTI cache (settings.CACHES["lti"]) keeps launch state in."""

from typing import Any

from django.core.management import call_command
from django.db import migrations


def create_cache_tables(apps: Any, schema_editor: Any) -> None:
    """Create every database cache table the settings name (existing ones are left alone)."""
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("lti", "0001_initial")]

    operations = [migrations.RunPython(create_cache_tables, migrations.RunPython.noop)]
