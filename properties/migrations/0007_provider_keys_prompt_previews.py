"""Provider keys move out of plain text: prompt-property keys and `api_key` entries in project
configurations become encrypted project keys; `allow_private_addresses` leaves project
configurations (it is the operator's setting now). Previews get a table of their own."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def encrypt_plain_keys(apps, schema_editor):
    from properties import provider_keys

    Project = apps.get_model("properties", "Project")
    ProjectKey = apps.get_model("properties", "ProjectKey")
    PromptProperty = apps.get_model("properties", "PromptProperty")

    def store(project, name: str, key: str):
        token = provider_keys.encrypt(key)  # SecretsUnavailable names the setting to set
        unique, suffix = name[:90], 2
        while ProjectKey.objects.filter(project=project, name=unique).exists():
            unique, suffix = f"{name[:90]}-{suffix}", suffix + 1
        return ProjectKey.objects.create(project=project, name=unique, encrypted=token)

    for prompt in PromptProperty.objects.exclude(api_key=""):
        prompt.project_key = store(prompt.project, prompt.property_name, prompt.api_key)
        prompt.api_key = ""
        prompt.save(update_fields=["project_key", "api_key"])
    for project in Project.objects.all():
        config, changed = dict(project.property_config or {}), False
        for prop, options in config.items():
            if not isinstance(options, dict):
                continue
            options = dict(options)
            if options.pop("allow_private_addresses", None) is not None:
                changed = True
            key = options.pop("api_key", None)
            if key:
                options["api_key_name"] = store(project, prop, str(key)).name
                changed = True
            config[prop] = options
        if changed:
            project.property_config = config
            project.save(update_fields=["property_config"])


class Migration(migrations.Migration):
    dependencies = [
        ("properties", "0006_prompt_properties_llm_usage"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ProjectKey",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100)),
                ("encrypted", models.TextField()),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="provider_keys",
                        to="properties.project",
                    ),
                ),
            ],
            options={"ordering": ["name", "pk"]},
        ),
        migrations.AddConstraint(
            model_name="projectkey",
            constraint=models.UniqueConstraint(fields=("project", "name"), name="unique_project_key_name"),
        ),
        migrations.AddField(
            model_name="promptproperty",
            name="project_key",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="properties.projectkey",
            ),
        ),
        migrations.RunPython(encrypt_plain_keys, migrations.RunPython.noop),
        migrations.RemoveField(model_name="promptproperty", name="api_key"),
        migrations.CreateModel(
            name="PromptPreview",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("spec", models.JSONField()),
                ("encrypted_key", models.TextField(blank=True)),
                ("interaction_ids", models.JSONField(default=list)),
                (
                    "status",
                    models.CharField(
                        choices=[("waiting", "Waiting"), ("done", "Done"), ("failed", "Failed")],
                        default="waiting",
                        max_length=10,
                    ),
                ),
                ("results", models.JSONField(default=list)),
                ("error", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "created_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="properties.project"
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        null=True, on_delete=django.db.models.deletion.CASCADE, related_name="+", to="properties.run"
                    ),
                ),
            ],
        ),
    ]
