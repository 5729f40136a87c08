from django.contrib import admin

from properties.models import Interaction, Membership, Project, PropertyValue, Run, ScoringJob, Upload

admin.site.register([Project, Membership, Run, Interaction, PropertyValue, ScoringJob, Upload])
