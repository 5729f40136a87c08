"""Projects remember the template they started from, their key properties, and their pass criteria;
an index lets the run's score be counted from the index alone.

Numbered 0009 on the datascreen branch: another branch adds 0008; renumber when merging."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("properties", "0009_run_deletion_jobs"),
    ]

    operations = [
        migrations.AddField(
            model_name="project",
            name="key_properties",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="project",
            name="pass_criteria",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="project",
            name="template",
            field=models.CharField(blank=True, max_length=20),
        ),
        migrations.AddIndex(
            model_name="interaction",
            index=models.Index(
                fields=["run", "annotation", "annotation_source", "estimated_annotation"], name="interaction_run_score"
            ),
        ),
    ]
