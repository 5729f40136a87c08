"""The resilient pipeline (issue 15): chunks record their dispatch (queue, sent, started, by which
worker, attempts) so a sweeper can send lost ones again; jobs can be planning, failed or cancelled,
with the reason; worker heartbeats; runs and projects hidden while a worker deletes them; uploads
keep their run's name until rows are stored and their content hash; values can be not applicable.

Chunks finished before this migration are marked done. Unfinished ones keep no dispatch record, so
the sweeper sends them again: jobs left "Running" by a lost worker finish after the upgrade."""

import django.utils.timezone
from django.db import migrations, models


def backfill(apps, schema_editor):
    from properties.scorers import registry

    ScoringChunk = apps.get_model("properties", "ScoringChunk")
    Upload = apps.get_model("properties", "Upload")
    ScoringChunk.objects.filter(finished_at__isnull=False).update(state="done")
    for name in ScoringChunk.objects.filter(finished_at__isnull=True).values_list("property_name", flat=True).distinct():
        try:
            queue = registry.get(name).queue
        except registry.RegistryError:
            queue = "llm" if name.startswith("prompt_") else "cpu"
        ScoringChunk.objects.filter(finished_at__isnull=True, property_name=name).update(queue=queue)
    for upload in Upload.objects.filter(run__isnull=False).select_related("run"):
        upload.run_name, upload.environment = upload.run.name, upload.run.environment
        upload.save(update_fields=["run_name", "environment"])


class Migration(migrations.Migration):

    dependencies = [
        ('properties', '0007_provider_keys_prompt_previews'),
    ]

    operations = [
        migrations.CreateModel(
            name='WorkerHeartbeat',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('worker', models.CharField(max_length=200, unique=True)),
                ('hostname', models.CharField(max_length=200)),
                ('pid', models.PositiveIntegerField()),
                ('queues', models.JSONField(default=list)),
                ('concurrency', models.PositiveSmallIntegerField(default=1)),
                ('started_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('last_seen', models.DateTimeField(default=django.utils.timezone.now)),
                ('idle_since', models.DateTimeField(blank=True, null=True)),
                ('stopped_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'ordering': ['hostname', 'pk'],
            },
        ),
        migrations.AddField(
            model_name='project',
            name='deleting',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='run',
            name='api_batches',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='run',
            name='deleting',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='attempts',
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='created_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='failed_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='kind',
            field=models.CharField(choices=[('plan', 'Plan'), ('score', 'Score'), ('annotate', 'Annotate')], default='score', max_length=10),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='last_error',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='queue',
            field=models.CharField(default='cpu', max_length=20),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='sent_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='started_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='state',
            field=models.CharField(choices=[('open', 'Open'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='open', max_length=10),
        ),
        migrations.AddField(
            model_name='scoringchunk',
            name='worker',
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.AddField(
            model_name='scoringjob',
            name='failure',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='scoringjob',
            name='notice',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='upload',
            name='content_hash',
            field=models.CharField(blank=True, db_index=True, max_length=64),
        ),
        migrations.AddField(
            model_name='upload',
            name='environment',
            field=models.CharField(choices=[('evaluation', 'Evaluation'), ('production', 'Production')], default='evaluation', max_length=20),
        ),
        migrations.AddField(
            model_name='upload',
            name='run_name',
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.AlterField(
            model_name='propertyvalue',
            name='status',
            field=models.CharField(choices=[('ok', 'Ok'), ('error', 'Error'), ('not_applicable', 'not applicable')], default='ok', max_length=16),
        ),
        migrations.AlterField(
            model_name='scoringchunk',
            name='property_name',
            field=models.CharField(blank=True, max_length=100),
        ),
        migrations.AlterField(
            model_name='scoringjob',
            name='status',
            field=models.CharField(choices=[('planning', 'Planning'), ('pending', 'Pending'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='pending', max_length=10),
        ),
        migrations.AddIndex(
            model_name='scoringchunk',
            index=models.Index(fields=['state', 'queue'], name='chunk_state_queue'),
        ),
        migrations.AddIndex(
            model_name='scoringchunk',
            index=models.Index(fields=['job', 'state'], name='chunk_job_state'),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
