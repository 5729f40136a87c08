"""factory_boy factories for the models tests build most often."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from factory.django import DjangoModelFactory

from properties.models import Interaction, Membership, Project, Run

TEST_PASSWORD = "a long test password"


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.django.Password(TEST_PASSWORD)


class ProjectFactory(DjangoModelFactory):
    """A project with an owner: `ProjectFactory(owner=user)`, or a new user when none is given."""

    class Meta:
        model = Project
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Project {n}")

    @factory.post_generation
    def owner(self, create: bool, extracted, **kwargs) -> None:
        if create:
            self.add_member(extracted or UserFactory(), Membership.Role.OWNER)


class RunFactory(DjangoModelFactory):
    class Meta:
        model = Run

    project = factory.SubFactory(ProjectFactory)
    name = factory.Sequence(lambda n: f"run-{n}")


class InteractionFactory(DjangoModelFactory):
    """Saved through Interaction.save(), which computes input_hash."""

    class Meta:
        model = Interaction

    run = factory.SubFactory(RunFactory)
    user_interaction_id = factory.Sequence(lambda n: f"interaction-{n}")
    input = factory.Sequence(lambda n: f"Question number {n}?")
    output = factory.Sequence(lambda n: f"Answer number {n}.")
