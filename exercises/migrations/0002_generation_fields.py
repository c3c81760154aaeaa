from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("exercises", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="problemset",
            name="published_at",
            field=models.DateTimeField(blank=True, help_text="last publication", null=True),
        ),
        migrations.AddField(
            model_name="variantitem",
            name="generation_attempt",
            field=models.PositiveIntegerField(
                default=0,
                help_text="0-based attempt whose problem met the kind's quality constraints",
            ),
        ),
    ]
