from django.core.management.base import BaseCommand

from properties.demo import DEMO_USERNAME, create_demo


class Command(BaseCommand):
    help = "Create the demo user and a demo project whose interactions are uploaded and scored."

    def handle(self, *args, **options) -> None:
        password, project = create_demo()
        if password:
            # Printed once: it is stored hashed and never shown again.
            self.stdout.write(self.style.SUCCESS(f"Demo user: {DEMO_USERNAME}  password: {password}"))
        else:
            self.stdout.write(f"Demo user {DEMO_USERNAME!r} already exists (its password was printed on first start).")
        self.stdout.write(f"Demo project: {project.name} (id {project.pk})")
